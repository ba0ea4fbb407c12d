// arb_time and arb_device_synchronize through the C ABI, on the real host clock.
#include "arbiter/runtime/arbiter_runtime.h"
#include "arbiter/runtime/timing_options.hpp"
#include "test_dir.hpp"

#include <gtest/gtest.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct counting_state {
  std::vector<int64_t> calls;
  int64_t fail_at = -1;
  std::chrono::microseconds sleep{0};
};

int counting_call(void* user, int64_t call_idx) {
  auto& state = *static_cast<counting_state*>(user);
  state.calls.push_back(call_idx);
  if (state.sleep.count() > 0) std::this_thread::sleep_for(state.sleep);
  return call_idx == state.fail_at ? 1 : 0;
}

arb_timing_config cpu_config() {
  arb_timing_config config{};
  config.device = ARB_DEVICE_CPU;
  config.warmup_calls = 3;
  config.min_samples = 5;
  config.max_samples = 5;
  config.min_time_s = 1000; // the noise rule cannot stop the loop unless a test lowers this
  config.max_time_s = 2000;
  config.target_rel_noise = 0.01;
  config.l2_flush_bytes = 1 << 16; // keep the tests fast; the default 64 MiB is for real runs
  return config;
}

// Samples until max_time_s, however noisy: a loop of a known length.
arb_timing_config max_time_config(double max_time_s) {
  arb_timing_config config = cpu_config();
  config.max_samples = 1000000;
  config.max_time_s = max_time_s;
  return config;
}

fs::path temp_path(const std::string& name) {
  static const arbiter::runtime::test_support::process_dir dir("arbiter_runtime_api_test_");
  return dir.path() / name;
}

} // namespace

TEST(arb_time, cpu_counts_warmup_and_stops_at_max_samples) {
  counting_state state;
  const arb_timing_config config = cpu_config();
  const fs::path json_path = temp_path("max_samples.json");
  arb_timing_result result{};
  ASSERT_EQ(arb_time(&config, counting_call, &state, json_path.c_str(), &result), ARB_OK) << arb_last_error();
  EXPECT_EQ(state.calls, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(result.samples, 5);
  EXPECT_EQ(result.stop, 2);
  EXPECT_LE(result.min_ms, result.median_ms);
  EXPECT_LE(result.median_ms, result.max_ms);

  std::ifstream in(json_path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["device"], "cpu");
  EXPECT_EQ(doc["clock"], "steady_clock");
  EXPECT_EQ(doc["warmup"], 3);
  EXPECT_EQ(doc["stop"], "max_samples");
  EXPECT_EQ(doc["times_ms"].size(), 5u);
  EXPECT_DOUBLE_EQ(doc["median_ms"].get<double>(), result.median_ms);
}

TEST(arb_time, the_last_record_stays_in_memory_whatever_happens_to_the_file) {
  counting_state state;
  const arb_timing_config config = cpu_config();
  const fs::path json_path = temp_path("last_record.json");
  ASSERT_EQ(arb_time(&config, counting_call, &state, json_path.c_str(), nullptr), ARB_OK) << arb_last_error();
  std::string written;
  {
    std::ifstream in(json_path);
    written.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::ofstream(json_path) << R"({"median_ms": 0.001})"; // what a forger would leave in the file

  const int64_t length = arb_last_timing(nullptr, 0);
  ASSERT_EQ(length, static_cast<int64_t>(written.size()));
  std::string held(static_cast<std::size_t>(length), '\0');
  EXPECT_EQ(arb_last_timing(held.data(), length), length);
  EXPECT_EQ(held, written);
  std::string prefix(8, '\0'); // a short buffer gets the start and the whole length
  EXPECT_EQ(arb_last_timing(prefix.data(), 8), length);
  EXPECT_EQ(prefix, written.substr(0, 8));
}

TEST(arb_time, cpu_stops_at_max_time) {
  counting_state state;
  state.sleep = std::chrono::microseconds(2000);
  const arb_timing_config config = max_time_config(0.05);
  arb_timing_result result{};
  ASSERT_EQ(arb_time(&config, counting_call, &state, nullptr, &result), ARB_OK) << arb_last_error();
  EXPECT_EQ(result.stop, 1);
  EXPECT_GE(result.samples, 1);
  EXPECT_LE(result.samples, 26); // each sample sleeps 2 ms within a 50 ms budget
  EXPECT_GE(result.median_ms, 2.0);
}

TEST(arb_time, the_record_carries_the_loop_span_on_both_clocks) {
  counting_state state;
  state.sleep = std::chrono::microseconds(2000);
  const arb_timing_config config = max_time_config(0.1);
  const fs::path json_path = temp_path("clock_check.json");
  ASSERT_EQ(arb_time(&config, counting_call, &state, json_path.c_str(), nullptr), ARB_OK) << arb_last_error();
  std::ifstream in(json_path);
  const nlohmann::json check = nlohmann::json::parse(in)["clock_check"];
  const double sample_s = check["sample_clock_s"].get<double>();
  const double kernel_s = check["kernel_clock_s"].get<double>();
  EXPECT_GE(sample_s, 0.1);                         // the loop ran to max_time
  EXPECT_NEAR(kernel_s, sample_s, 0.01 * sample_s); // an honest clock agrees with the kernel's
}

TEST(arb_time, cpu_stops_on_noise) {
  counting_state state;
  arb_timing_config config = cpu_config();
  config.min_samples = 4;
  config.max_samples = 1000;
  config.min_time_s = 0;
  config.target_rel_noise = 1e9; // any measured spread satisfies it
  arb_timing_result result{};
  ASSERT_EQ(arb_time(&config, counting_call, &state, nullptr, &result), ARB_OK) << arb_last_error();
  EXPECT_EQ(result.stop, 0);
  EXPECT_EQ(result.samples, 4);
}

TEST(arb_time, callback_failure_returns_callback_error) {
  counting_state state;
  state.fail_at = 4;
  const arb_timing_config config = cpu_config();
  const fs::path json_path = temp_path("failed.json");
  fs::remove(json_path);
  arb_timing_result result{};
  EXPECT_EQ(arb_time(&config, counting_call, &state, json_path.c_str(), &result), ARB_E_CALLBACK);
  EXPECT_NE(std::string(arb_last_error()).find("forward call 4"), std::string::npos) << arb_last_error();
  EXPECT_EQ(state.calls.back(), 4); // no call after the failing one
  EXPECT_FALSE(fs::exists(json_path));
}

TEST(arb_time, invalid_config_is_an_argument_error) {
  counting_state state;
  arb_timing_config config = cpu_config();
  config.max_samples = 2; // below min_samples
  EXPECT_EQ(arb_time(&config, counting_call, &state, nullptr, nullptr), ARB_E_ARG);
  config = cpu_config();
  config.device = 7;
  EXPECT_EQ(arb_time(&config, counting_call, &state, nullptr, nullptr), ARB_E_ARG);
  EXPECT_EQ(arb_time(nullptr, counting_call, &state, nullptr, nullptr), ARB_E_ARG);
  EXPECT_TRUE(state.calls.empty());
}

// The one set of defaults: what the C ABI hands out per device is timing_options' own.
TEST(arb_timing_defaults, each_device_gets_the_campaign_defaults_and_cuda_its_paced_longer_loop) {
  for (const int32_t device : {ARB_DEVICE_CPU, ARB_DEVICE_CUDA}) {
    arb_timing_config config{};
    ASSERT_EQ(arb_timing_defaults(device, &config), ARB_OK);
    const auto expected = arbiter::runtime::for_device(arbiter::runtime::timing_options{}, device == ARB_DEVICE_CUDA);
    EXPECT_EQ(config.device, device);
    EXPECT_EQ(config.warmup_calls, expected.warmup_calls);
    EXPECT_EQ(config.min_samples, expected.rule.min_samples);
    EXPECT_EQ(config.max_samples, expected.rule.max_samples);
    EXPECT_DOUBLE_EQ(config.min_time_s, expected.rule.min_time_s);
    EXPECT_DOUBLE_EQ(config.max_time_s, expected.rule.max_time_s);
    EXPECT_DOUBLE_EQ(config.target_rel_noise, expected.rule.target_rel_noise);
    EXPECT_DOUBLE_EQ(config.warmup_time_s, expected.rule.warmup_time_s);
    EXPECT_DOUBLE_EQ(config.rest_ratio, expected.rule.rest_ratio);
    EXPECT_EQ(config.probe_group, -1);
    EXPECT_EQ(config.after_call, nullptr);
  }
  arb_timing_config cpu{}, cuda{};
  arb_timing_defaults(ARB_DEVICE_CPU, &cpu);
  arb_timing_defaults(ARB_DEVICE_CUDA, &cuda);
  EXPECT_DOUBLE_EQ(cpu.warmup_time_s, 0.0); // the host is not paced
  EXPECT_DOUBLE_EQ(cpu.rest_ratio, 0.0);
  EXPECT_GT(cuda.warmup_time_s, 0.0);
  EXPECT_GT(cuda.rest_ratio, 0.0);
  EXPECT_GT(cuda.min_time_s, cpu.min_time_s);
  // the defaults run: a cpu loop from them alone is valid
  counting_state state;
  EXPECT_EQ(arb_time(&cpu, counting_call, &state, nullptr, nullptr), ARB_OK);
  EXPECT_EQ(arb_timing_defaults(7, &cpu), ARB_E_ARG);
  EXPECT_EQ(arb_timing_defaults(ARB_DEVICE_CPU, nullptr), ARB_E_ARG);
}

// This test process never initialises CUDA, so whether or not the machine has a driver, a cuda
// request must fail cleanly (no driver, or no current context) rather than crash.
TEST(arb_time, cuda_without_driver_or_context_is_a_cuda_error) {
  counting_state state;
  arb_timing_config config = cpu_config();
  config.device = ARB_DEVICE_CUDA;
  EXPECT_EQ(arb_time(&config, counting_call, &state, nullptr, nullptr), ARB_E_CUDA);
  const std::string message = arb_last_error();
  EXPECT_TRUE(message.find("libcuda") != std::string::npos || message.find("context") != std::string::npos) << message;
  EXPECT_TRUE(state.calls.empty());
  EXPECT_EQ(arb_device_synchronize(ARB_DEVICE_CUDA), ARB_E_CUDA);
  EXPECT_EQ(arb_device_synchronize(ARB_DEVICE_CPU), ARB_OK);
}

namespace {

/// What the loader says of the object that holds arb_time: full RELRO and bound at load.
struct binding {
  bool found = false, relro = false, bind_now = false;
};

int inspect(dl_phdr_info* info, std::size_t, void* data) {
  auto& out = *static_cast<binding*>(data);
  Dl_info where{};
  if (::dladdr(reinterpret_cast<void*>(&arb_time), &where) == 0 || where.dli_fbase == nullptr) return 0;
  if (reinterpret_cast<void*>(info->dlpi_addr) != where.dli_fbase &&
      std::string(info->dlpi_name ? info->dlpi_name : "") != (where.dli_fname ? where.dli_fname : ""))
    return 0;
  out.found = true;
  for (int idx = 0; idx < info->dlpi_phnum; ++idx) {
    const auto& header = info->dlpi_phdr[idx];
    if (header.p_type == PT_GNU_RELRO) out.relro = true;
    if (header.p_type != PT_DYNAMIC) continue;
    for (auto* dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + header.p_vaddr); dyn->d_tag != DT_NULL; ++dyn) {
      if (dyn->d_tag == DT_BIND_NOW) out.bind_now = true;
      if (dyn->d_tag == DT_FLAGS && (dyn->d_un.d_val & DF_BIND_NOW)) out.bind_now = true;
      if (dyn->d_tag == DT_FLAGS_1 && (dyn->d_un.d_val & DF_1_NOW)) out.bind_now = true;
    }
  }
  return 1;
}

} // namespace

// A solution that finds the runtime's GOT cannot repoint its clock calls: the table is read-only
// once loaded (full RELRO) and nothing is bound lazily later.
TEST(runtime_api, the_library_is_bound_at_load_with_a_read_only_got) {
  binding b;
  ::dl_iterate_phdr(inspect, &b);
  ASSERT_TRUE(b.found);
  EXPECT_TRUE(b.relro);
  EXPECT_TRUE(b.bind_now);
}
