// Calibration without a real runner: events as the calibrate mode writes them, read into peaks and
// stored with the hardware record.
#include "arbiter/pipeline/calibrate.hpp"
#include "arbiter/pipeline/options.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include "arbiter/common/frames.hpp"

namespace {
/// The runner's events as it writes them: each JSON line of a fixture as a frame.
struct framed_events : std::istringstream {
  explicit framed_events(std::string_view json_lines) : std::istringstream(arbiter::frames_from_lines(json_lines)) {}
};
} // namespace

namespace fs = std::filesystem;
using namespace arbiter;
using namespace arbiter::pipeline;

namespace {

const char* const k_events = R"({"event": "start", "mode": "calibrate", "device": "cuda"}
{"event": "calibration", "kind": "copy", "dtype": "uint8", "size": 1073741824, "work": 2147483648, "unit": "bytes_per_s", "rate": 4.0e12, "median_ms": 0.5, "samples": 200, "rel_noise": 0.002}
{"event": "calibration", "kind": "gemm", "dtype": "float32", "size": 8192, "work": 1.1e12, "unit": "flops_per_s", "rate": 5.0e13, "median_ms": 22.0, "samples": 45, "rel_noise": 0.004}
{"event": "calibration", "kind": "gemm", "dtype": "bfloat16", "size": 8192, "work": 1.1e12, "unit": "flops_per_s", "rate": 7.5e14, "median_ms": 1.5, "samples": 300, "rel_noise": 0.003}
{"event": "calibration", "kind": "gemm", "dtype": "float8_e4m3fn", "skipped": "torch 2.0 has no float8_e4m3fn or torch._scaled_mm"}
{"event": "done"}
)";

sandbox::process_result exited(int code) {
  sandbox::process_result process;
  process.end = sandbox::process_end::exited;
  process.exit_code = code;
  return process;
}

/// Answers every run with the given events, written where the job says, as the runner would.
class scripted_runner : public sandbox::process_runner {
 public:
  explicit scripted_runner(std::string events) : m_events(std::move(events)) {}
  sandbox::process_result run(const sandbox::process_spec& spec) override {
    argv = spec.argv;
    std::ifstream in(spec.argv.back());
    job = nlohmann::json::parse(in);
    std::ofstream(job["events_file"].get<std::string>()) << arbiter::frames_from_lines(m_events);
    return exited(0);
  }
  std::vector<std::string> argv;
  nlohmann::json job;

 private:
  std::string m_events;
};

class calibrate_fixture : public ::testing::Test {
 protected:
  void SetUp() override {
    m_root = fs::temp_directory_path() / ("arbiter_calibrate_" + std::to_string(::getpid()));
    fs::remove_all(m_root);
    fs::create_directories(m_root);
    std::ofstream(m_root / "libarbiter_runtime.so") << "stand-in";
    ::setenv("ARBITER_RUNTIME_LIB", (m_root / "libarbiter_runtime.so").c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("ARBITER_RUNTIME_LIB");
    fs::remove_all(m_root);
  }
  fs::path m_root;
};

} // namespace

TEST(calibrate, events_become_peaks_with_measurements_and_skips) {
  framed_events events(k_events);
  std::string error;
  const auto peaks = read_calibration(events, exited(0), error);
  ASSERT_EQ(error, "");
  EXPECT_DOUBLE_EQ(peaks["bytes_per_s"].get<double>(), 4.0e12);
  EXPECT_DOUBLE_EQ(peaks["flops_per_s"]["float32"].get<double>(), 5.0e13);
  EXPECT_DOUBLE_EQ(peaks["flops_per_s"]["bfloat16"].get<double>(), 7.5e14);
  EXPECT_FALSE(peaks["flops_per_s"].contains("float8_e4m3fn"));
  EXPECT_EQ(peaks["skipped"]["float8_e4m3fn"], "torch 2.0 has no float8_e4m3fn or torch._scaled_mm");
  EXPECT_EQ(peaks["measurements"].size(), 3u);
  EXPECT_EQ(peaks["measurements"][0]["samples"], 200);
  EXPECT_TRUE(peaks["measured_at"].is_string());
}

TEST(calibrate, a_failed_process_or_missing_copy_gives_no_peaks) {
  std::string error;
  framed_events cut(R"({"event": "start"})"
                    "\n");
  EXPECT_TRUE(read_calibration(cut, exited(1), error).is_null());
  EXPECT_NE(error.find("exited with status 1"), std::string::npos) << error;

  error.clear();
  framed_events failed(R"({"event": "error", "phase": "init", "type": "RuntimeError", "message": "no CUDA"})"
                       "\n");
  EXPECT_TRUE(read_calibration(failed, exited(1), error).is_null());
  EXPECT_NE(error.find("RuntimeError: no CUDA"), std::string::npos) << error;

  error.clear();
  framed_events no_copy(R"({"event": "calibration", "kind": "copy", "dtype": "uint8", "skipped": "OutOfMemoryError: CUDA"}
{"event": "calibration", "kind": "gemm", "dtype": "float32", "rate": 1e12}
{"event": "done"}
)");
  EXPECT_TRUE(read_calibration(no_copy, exited(0), error).is_null());
  EXPECT_NE(error.find("copy bandwidth: OutOfMemoryError"), std::string::npos) << error;

  error.clear();
  framed_events no_gemm(R"({"event": "calibration", "kind": "copy", "dtype": "uint8", "rate": 1e9}
{"event": "done"}
)");
  EXPECT_TRUE(read_calibration(no_gemm, exited(0), error).is_null());
  EXPECT_NE(error.find("any GEMM"), std::string::npos) << error;
}

TEST_F(calibrate_fixture, peaks_are_stored_in_the_hardware_json_and_the_fingerprint_stays) {
  auto db = store::open_store((m_root / "results.db").string());
  store::hardware_record hw;
  hw.fingerprint = "0123456789abcdef";
  hw.device = "cuda";
  hw.json = R"({"host": "node1"})";
  const auto hw_id = db->upsert_hardware(hw);
  EXPECT_FALSE(has_peaks(*db, hw_id));

  scripted_runner runner(k_events);
  const fs::path dir = calibration_dir((m_root / "results.db").string(), hw.fingerprint);
  EXPECT_EQ(dir, m_root / "results.db.d" / "calibration" / "0123456789ab");
  const auto run = calibrate_hardware(*db, hw_id, "cuda", "/usr/bin/python3", dir, 60, runner);
  ASSERT_EQ(run.error, "");
  EXPECT_EQ(runner.job["mode"], "calibrate");
  EXPECT_EQ(runner.job["device"], "cuda");
  EXPECT_EQ(runner.argv[3], "calibrate");
  // Peaks are timed in the state candidates are: after the warm-up by time, resting after each call.
  const timing_options eval_timing;
  EXPECT_DOUBLE_EQ(runner.job["timing"]["warmup_time_s"].get<double>(), eval_timing.warmup_time_s);
  EXPECT_DOUBLE_EQ(runner.job["timing"]["rest_ratio"].get<double>(), eval_timing.cuda_rest_ratio);
  // shorter than a campaign's loop: every key the runner reads is in the job, none defaulted there
  EXPECT_LT(runner.job["timing"]["min_time_s"].get<double>(), eval_timing.cuda_min_time_s);
  EXPECT_LT(runner.job["timing"]["max_time_s"].get<double>(), eval_timing.max_time_s);
  EXPECT_TRUE(runner.job["timing"].contains("target_rel_noise"));
  EXPECT_TRUE(has_peaks(*db, hw_id));

  const auto list = db->hardware_list();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].record.fingerprint, hw.fingerprint);
  const auto stored = nlohmann::json::parse(list[0].record.json);
  EXPECT_EQ(stored["host"], "node1");
  EXPECT_DOUBLE_EQ(stored["peaks"]["bytes_per_s"].get<double>(), 4.0e12);
  EXPECT_EQ(stored["peaks"]["device"], "cuda");
  EXPECT_EQ(db->upsert_hardware(hw), hw_id);
}

TEST_F(calibrate_fixture, a_failed_calibration_stores_nothing) {
  auto db = store::open_store((m_root / "results.db").string());
  store::hardware_record hw;
  hw.fingerprint = "fedcba9876543210";
  hw.device = "cpu";
  const auto hw_id = db->upsert_hardware(hw);
  scripted_runner runner(R"({"event": "start"})"
                         "\n");
  const auto run = calibrate_hardware(*db, hw_id, "cpu", "/usr/bin/python3", m_root / "calibration", 60, runner);
  EXPECT_NE(run.error.find("log: "), std::string::npos) << run.error;
  EXPECT_EQ(runner.job["timing"]["warmup_time_s"], 0.0); // the host is not paced
  EXPECT_EQ(runner.job["timing"]["rest_ratio"], 0.0);
  EXPECT_FALSE(has_peaks(*db, hw_id));
  EXPECT_EQ(db->hardware_list()[0].record.json, "{}");
}
