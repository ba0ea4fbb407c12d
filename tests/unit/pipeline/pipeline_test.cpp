// The orchestrator's judgement of a candidate run, without real processes: the runner's files
// are written here as a candidate would leave them.
#include "arbiter/runtime/arbiter_runtime.h"
#include "detail/events.hpp"
#include "detail/judge.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace arbiter;
using namespace arbiter::pipeline;

namespace {

void write_bundle(const fs::path& file, std::vector<float> values) {
  fs::create_directories(file.parent_path());
  arb_writer* w = nullptr;
  ASSERT_EQ(arb_writer_open(file.c_str(), &w), ARB_OK);
  const std::int64_t shape[1] = {static_cast<std::int64_t>(values.size())};
  ASSERT_EQ(arb_writer_add(w, ARB_KIND_TENSOR, ARB_F32, 1, shape, values.data(), values.size() * 4), ARB_OK);
  ASSERT_EQ(arb_writer_close(w), ARB_OK);
}

void write_timing(const fs::path& file, double median_ms) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << nlohmann::json{{"clock", "host"}, {"median_ms", median_ms}, {"p10_ms", median_ms}, {"p90_ms", median_ms},
                                        {"samples", 10}, {"rel_noise", 0.001}}.dump();
}

class judge_fixture : public ::testing::Test {
protected:
  void SetUp() override {
    m_root = fs::temp_directory_path() / ("arbiter_judge_" + std::to_string(::getpid()));
    fs::remove_all(m_root);
    m_options.num_seeds = 3;
    m_problem.id = "p";
    m_problem.tol = catalog::default_tolerance("float32");
    for (int seed_idx = 0; seed_idx < 3; ++seed_idx)
      write_bundle(ref() / "expected/0" / std::to_string(seed_idx) / "outputs.arbb", {1, 2, 3});
    write_timing(ref() / "timing/0.json", 2.0);
    m_run.process.end = sandbox::process_end::exited;
    m_run.process.exit_code = 0;
    m_run.events.started = true;
    m_run.events.done = true;
    m_run.events.last_event = "done";
  }
  void TearDown() override { fs::remove_all(m_root); }
  fs::path ref() const { return m_root / "ref"; }
  fs::path eval() const { return m_root / "eval"; }
  // As the runner leaves them: each case's output and its determinism re-run.
  void candidate_outputs(std::vector<float> values) {
    for (int seed_idx = 0; seed_idx < 3; ++seed_idx)
      for (const char* file : {"outputs.arbb", "repeat.arbb"})
        write_bundle(eval() / "outputs/0" / std::to_string(seed_idx) / file, values);
    write_timing(eval() / "timing/0.json", 0.5);
  }
  detail::judgement judge() {
    const detail::job_context ctx{m_options, m_paths, "cpu", {catalog::shape{"n3", {}, nlohmann::json::object()}}};
    return detail::judge(ctx, m_problem, m_run, ref(), eval());
  }

  fs::path m_root;
  eval_options m_options;
  runner_paths m_paths;
  catalog::problem m_problem;
  detail::candidate_run m_run;
};

} // namespace

TEST_F(judge_fixture, matching_outputs_pass_with_speedup_from_medians) {
  candidate_outputs({1, 2, 3});
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::passed) << j.result.reason;
  ASSERT_TRUE(j.speedup.has_value());
  EXPECT_DOUBLE_EQ(*j.speedup, 4.0);
  ASSERT_EQ(j.measurements.size(), 2u);
  EXPECT_EQ(j.measurements[0].role, "baseline");
  EXPECT_EQ(j.measurements[1].role, "candidate");
}

TEST_F(judge_fixture, wrong_outputs_are_incorrect_and_name_the_case) {
  candidate_outputs({1, 2, 4});
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::incorrect);
  EXPECT_NE(j.result.reason.find("shape n3, input set 0"), std::string::npos) << j.result.reason;
  EXPECT_FALSE(j.speedup.has_value());
}

TEST_F(judge_fixture, a_done_event_does_not_beat_a_missing_output) {
  const auto j = judge(); // no outputs written at all
  EXPECT_EQ(j.result.v, verdict::incorrect);
  EXPECT_NE(j.result.reason.find("no readable output"), std::string::npos);
}

TEST_F(judge_fixture, import_failure_is_compile_error) {
  m_run.events.done = false;
  m_run.events.error = nlohmann::json{{"event", "error"}, {"phase", "load"}, {"type", "SyntaxError"}, {"message", "invalid syntax\nmore"}};
  m_run.process.exit_code = 1;
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::compile_error);
  EXPECT_EQ(j.result.reason, "import failed: SyntaxError: invalid syntax");
}

TEST_F(judge_fixture, signal_without_error_event_is_runtime_error_naming_the_signal) {
  m_run.events.done = false;
  m_run.events.last_event = "weights";
  m_run.process.end = sandbox::process_end::signaled;
  m_run.process.signal = 11;
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::runtime_error);
  EXPECT_NE(j.result.reason.find("SIGSEGV"), std::string::npos) << j.result.reason;
  EXPECT_NE(j.result.reason.find("after event 'weights'"), std::string::npos) << j.result.reason;
}

TEST_F(judge_fixture, clean_exit_without_done_is_not_success) {
  m_run.events.done = false;
  m_run.events.last_event = "case";
  candidate_outputs({1, 2, 3});
  EXPECT_EQ(judge().result.v, verdict::runtime_error);
}

TEST_F(judge_fixture, wall_clock_overrun_is_timeout) {
  m_run.events.done = false;
  m_run.process.end = sandbox::process_end::timed_out;
  m_run.process.wall_s = 30;
  EXPECT_EQ(judge().result.v, verdict::timeout);
}

TEST_F(judge_fixture, mutated_inputs_are_incorrect) {
  candidate_outputs({1, 2, 3});
  m_run.events.cases.push_back({{"event", "case"}, {"shape_idx", 0}, {"seed_idx", 1}, {"inputs_mutated", true}});
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::incorrect);
  EXPECT_NE(j.result.reason.find("modified its inputs (shape n3, input set 1)"), std::string::npos) << j.result.reason;
}

TEST(events, torn_last_line_is_ignored) {
  const fs::path file = fs::temp_directory_path() / "arbiter_events_test.jsonl";
  std::ofstream(file) << "{\"event\": \"start\", \"mode\": \"candidate\"}\n{\"event\": \"loaded\"}\n{\"event\": \"ca";
  const auto events = detail::read_events(file);
  EXPECT_TRUE(events.started);
  EXPECT_FALSE(events.done);
  EXPECT_EQ(events.last_event, "loaded");
  fs::remove(file);
}
