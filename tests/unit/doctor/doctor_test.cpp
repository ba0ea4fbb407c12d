// The doctor against this machine's real interpreters and driver (or its absence), plus
// fingerprint and rendering on hand-made environments.
#include "arbiter/common/error.hpp"
#include "arbiter/doctor/doctor.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

namespace fs = std::filesystem;
using namespace arbiter::doctor;

namespace {

/// Sets (or unsets, with nullopt) an environment variable for one scope.
class scoped_env {
 public:
  scoped_env(const char* name, std::optional<std::string> value) : m_name(name) {
    if (const char* old = std::getenv(name)) m_old = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~scoped_env() {
    if (m_old) {
      ::setenv(m_name, m_old->c_str(), 1);
    } else {
      ::unsetenv(m_name);
    }
  }

 private:
  const char* m_name;
  std::optional<std::string> m_old;
};

/// A folder holding an executable `name` with the given shell body.
fs::path fake_program(const std::string& name, const std::string& body) {
  std::string pattern = (fs::temp_directory_path() / "arbiter-doctor-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  fs::path const program = fs::path(pattern) / name;
  std::ofstream(program) << "#!/bin/sh\n" << body << "\n";
  fs::permissions(program, fs::perms::owner_all);
  return pattern;
}

gpu_info absent_gpu(const std::string& why) {
  gpu_info gpu;
  gpu.error = why;
  return gpu;
}

environment h200() {
  environment env;
  env.python = {"/usr/bin/python3", "3.11.2", "2.5.1", "12.4", "3.1.0", true, ""};
  env.gpu.present = true;
  env.gpu.name = "NVIDIA H200";
  env.gpu.sm_count = 132;
  env.gpu.l2_bytes = 60ll << 20;
  env.gpu.memory_bytes = 141ll << 30;
  env.gpu.cc_major = 9;
  env.gpu.driver_version = "13.0";
  env.gpu.device_count = 1;
  env.host = "gpu-node-1";
  env.os = "Linux";
  return env;
}

} // namespace

TEST(find_python, honours_arbiter_python) {
  scoped_env python("ARBITER_PYTHON", "/usr/bin/python3");
  EXPECT_EQ(find_python(), "/usr/bin/python3");
}

TEST(find_python, rejects_arbiter_python_without_torch) {
  scoped_env python("ARBITER_PYTHON", "/bin/false");
  try {
    find_python();
    FAIL() << "expected config_error";
  } catch (const arbiter::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("ARBITER_PYTHON=/bin/false"), std::string::npos) << e.what();
  }
}

TEST(find_python, skips_a_python3_on_path_without_torch) {
  auto const dir = fake_program("python3", "exit 1");
  scoped_env python("ARBITER_PYTHON", std::nullopt);
  scoped_env path("PATH", dir.string());
  EXPECT_EQ(find_python(), "/usr/bin/python3");
  fs::remove_all(dir);
}

TEST(probe_python, reports_torch_of_system_python) {
  auto const info = probe_python("/usr/bin/python3");
  EXPECT_EQ(info.error, "");
  EXPECT_EQ(info.path, "/usr/bin/python3");
  EXPECT_EQ(info.version.rfind("3.", 0), 0u) << info.version;
  EXPECT_EQ(info.torch_version.rfind("1.13", 0), 0u) << info.torch_version;
}

TEST(probe_python, reports_an_interpreter_that_fails) {
  auto const info = probe_python("/bin/false");
  EXPECT_NE(info.error.find("/bin/false"), std::string::npos) << info.error;
  EXPECT_EQ(info.torch_version, "");
}

TEST(probe_python, reports_output_that_is_not_json) {
  auto const dir = fake_program("python3", "echo hello");
  auto const info = probe_python((dir / "python3").string());
  EXPECT_NE(info.error.find("unexpected output"), std::string::npos) << info.error;
  fs::remove_all(dir);
}

TEST(probe_gpu, describes_the_gpu_or_why_there_is_none) {
  auto const gpu = probe_gpu();
  if (gpu.present) {
    EXPECT_FALSE(gpu.name.empty());
    EXPECT_GT(gpu.sm_count, 0);
    EXPECT_GT(gpu.l2_bytes, 0);
    EXPECT_GT(gpu.memory_bytes, 0);
    EXPECT_GT(gpu.cc_major, 0);
    EXPECT_FALSE(gpu.driver_version.empty());
    EXPECT_EQ(gpu.error, "");
  } else {
    EXPECT_FALSE(gpu.error.empty());
    EXPECT_EQ(gpu.name, "");
    EXPECT_EQ(gpu.sm_count, 0);
  }
}

TEST(probe_environment, fills_host_and_os) {
  auto const env = probe_environment("/usr/bin/python3");
  EXPECT_FALSE(env.host.empty());
  EXPECT_EQ(env.os.rfind("Linux ", 0), 0u) << env.os;
  if (fs::exists("/usr/local/cuda/bin/nvcc")) {
    EXPECT_NE(env.nvcc_version.find("release"), std::string::npos) << env.nvcc_version;
  }
  if (!env.cupti_path.empty()) {
    EXPECT_TRUE(fs::exists(env.cupti_path)) << env.cupti_path;
  }
  render(std::cout, env, false); // for the test log: what this machine looks like
}

TEST(hardware_for, fingerprint_is_stable_and_tracks_each_field) {
  auto const env = h200();
  auto const base = hardware_for(env, "cuda");
  EXPECT_EQ(base.fingerprint.size(), 64u);
  EXPECT_EQ(hardware_for(env, "cuda").fingerprint, base.fingerprint);
  auto changed = [&](auto mutate) {
    auto other = env;
    mutate(other);
    return hardware_for(other, "cuda").fingerprint != base.fingerprint;
  };
  EXPECT_TRUE(changed([](environment& e) { e.gpu.name = "NVIDIA H100"; }));
  EXPECT_TRUE(changed([](environment& e) { e.gpu.sm_count = 114; }));
  EXPECT_TRUE(changed([](environment& e) { e.gpu.l2_bytes = 50ll << 20; }));
  EXPECT_TRUE(changed([](environment& e) { e.gpu.memory_bytes = 80ll << 30; }));
  EXPECT_TRUE(changed([](environment& e) { e.gpu.driver_version = "12.8"; }));
  EXPECT_TRUE(changed([](environment& e) { e.python.torch_version = "2.6.0"; }));
  EXPECT_TRUE(changed([](environment& e) { e.python.version = "3.12.1"; }));
  EXPECT_FALSE(changed([](environment& e) { e.host = "gpu-node-2"; })); // same hardware elsewhere
  EXPECT_NE(hardware_for(env, "cpu").fingerprint, base.fingerprint);
}

TEST(hardware_for, fills_the_record) {
  auto const cuda = hardware_for(h200(), "cuda");
  EXPECT_EQ(cuda.gpu_name, "NVIDIA H200");
  EXPECT_EQ(cuda.sm_count, 132);
  EXPECT_EQ(cuda.cuda, "12.4");
  EXPECT_EQ(nlohmann::json::parse(cuda.json)["gpu"]["name"], "NVIDIA H200");
  auto const cpu = hardware_for(h200(), "cpu");
  EXPECT_EQ(cpu.gpu_name, "");
  EXPECT_EQ(cpu.sm_count, 0);
  EXPECT_EQ(cpu.torch, "2.5.1");
}

TEST(hardware_for, rejects_cuda_without_gpu_and_unknown_devices) {
  environment no_gpu = h200();
  no_gpu.gpu = absent_gpu("no CUDA driver");
  EXPECT_THROW(hardware_for(no_gpu, "cuda"), arbiter::config_error);
  EXPECT_NO_THROW(hardware_for(no_gpu, "cpu"));
  EXPECT_THROW(hardware_for(h200(), "tpu"), arbiter::config_error);
}

TEST(render, human_lines) {
  std::ostringstream out;
  render(out, h200(), false);
  EXPECT_NE(out.str().find("gpu: NVIDIA H200 (132 SMs, 60 MiB L2, 141 GiB), driver 13.0, compute capability 9.0\n"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("python: /usr/bin/python3 (3.11.2), torch 2.5.1 (CUDA 12.4)"), std::string::npos);
  EXPECT_NE(out.str().find("nvcc: none\n"), std::string::npos);
  environment none = h200();
  none.gpu = absent_gpu("no CUDA driver");
  std::ostringstream out_none;
  render(out_none, none, false);
  EXPECT_NE(out_none.str().find("gpu: none (no CUDA driver)\n"), std::string::npos) << out_none.str();
}

TEST(render, json_parses) {
  std::ostringstream out;
  render(out, h200(), true);
  auto const json = nlohmann::json::parse(out.str());
  EXPECT_EQ(json["gpu"]["sm_count"], 132);
  EXPECT_EQ(json["gpu"]["compute_capability"], "9.0");
  EXPECT_EQ(json["python"]["torch_version"], "2.5.1");
  EXPECT_EQ(json["host"], "gpu-node-1");
}
