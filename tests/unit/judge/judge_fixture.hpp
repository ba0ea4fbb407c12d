#pragma once
// The judge's test fixture: a reference folder and a candidate run written as the runner would
// leave them, without real processes (judge_test.cpp, outside_judge_test.cpp).
#include "arbiter/common/frames.hpp"
#include "arbiter/runtime/arbiter_runtime.h"
#include "detail/channel_evidence.hpp"
#include "arbiter/judge/events.hpp"
#include "arbiter/judge/judge.hpp"
#include "detail/timing_record.hpp"
#include "arbiter/probe/signature.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace arbiter;

namespace {

void write_bundle(const fs::path& file, std::vector<float> values) {
  fs::create_directories(file.parent_path());
  arb_writer* w = nullptr;
  ASSERT_EQ(arb_writer_open(file.c_str(), &w), ARB_OK);
  const std::int64_t shape[1] = {static_cast<std::int64_t>(values.size())};
  ASSERT_EQ(arb_writer_add(w, ARB_KIND_TENSOR, ARB_F32, 1, shape, values.data(), values.size() * 4), ARB_OK);
  ASSERT_EQ(arb_writer_close(w), ARB_OK);
}

nlohmann::json timing_json(double median_ms) {
  return {{"clock", "steady_clock"}, {"method", "steady_clock"},
          {"median_ms", median_ms},  {"p10_ms", median_ms},
          {"p90_ms", median_ms},     {"samples", 10},
          {"rel_noise", 0.001},      {"times_ms", {median_ms, median_ms}}};
}

void write_json_file(const fs::path& file, const nlohmann::json& value) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << value.dump();
}

class judge_fixture : public ::testing::Test {
 protected:
  void SetUp() override {
    m_root = fs::temp_directory_path() / ("arbiter_judge_" + std::to_string(::getpid()));
    fs::remove_all(m_root);
    m_problem.id = "p";
    m_problem.tol = catalog::default_tolerance("float32");
    for (int seed_idx = 0; seed_idx < 3; ++seed_idx)
      write_bundle(ref() / "expected/0" / std::to_string(seed_idx) / "outputs.arbb", {1, 2, 3});
    write_json_file(ref() / "timing/0.json", timing_json(2.0));
    // The reference's batches: its own model at its record's 2 ms per call, and three that call
    // nothing, which cost about 1 ms.
    arbiter::judge::outside_record reference;
    reference.batches = {{0, "reference", 2, 5.0, true, std::nullopt, std::nullopt},
                         {0, "overhead0", 2, 1.0, true, std::nullopt, std::nullopt},
                         {0, "overhead1", 2, 1.1, true, std::nullopt, std::nullopt},
                         {0, "overhead2", 2, 1.05, true, std::nullopt, std::nullopt}};
    arbiter::judge::write_outside(ref() / "outside.json", reference);
    for (int set_idx = 0; set_idx < 2; ++set_idx)
      write_bundle(ref() / "expected/0/outside" / (std::to_string(set_idx) + ".arbb"), {1, 2, 3});
    m_run.process.end = sandbox::process_end::exited;
    m_run.process.exit_code = 0;
    m_run.events.started = true;
    m_run.events.done = true;
    m_run.events.last_event = "done";
  }
  void TearDown() override { fs::remove_all(m_root); }
  fs::path ref() const { return m_root / "ref"; }
  fs::path eval() const { return m_root / "eval"; }
  // As the runner leaves them: each case's output and its determinism re-run, one timed output,
  // and the timing record and capture index both in the folder and on the channel.
  void candidate_outputs(std::vector<float> values, std::vector<float> timed = {}) {
    for (int seed_idx = 0; seed_idx < 3; ++seed_idx)
      for (const char* file : {"outputs.arbb", "repeat.arbb"})
        write_bundle(eval() / "outputs/0" / std::to_string(seed_idx) / file, values);
    write_bundle(eval() / "outputs/0/timed/0.arbb", timed.empty() ? values : timed);
    const auto index = nlohmann::json::array({{{"call_idx", 5}, {"input_set", 2}, {"file", "timed/0.arbb"}}});
    write_json_file(eval() / "outputs/0/timed.json", index);
    m_run.events.timed = nlohmann::json::array({{{"event", "timed"}, {"shape_idx", 0}, {"captures", index}}});
    candidate_timing(timing_json(0.5));
    outside_batch(values, 0.5);
  }
  // The candidate's batch as the orchestrator's clock saw it: two calls of per_call_ms each on
  // top of the overhead, and the outputs it kept.
  void outside_batch(std::vector<float> values, double per_call_ms) {
    m_run.outside.batches = {{0, "candidate", 2, 1.0 + 2 * per_call_ms, true, std::nullopt, 0.0}};
    for (int set_idx = 0; set_idx < 2; ++set_idx)
      write_bundle(eval() / "outside-kept/0/candidate" / (std::to_string(set_idx) + ".arbb"), values);
  }
  void candidate_timing(const nlohmann::json& record) {
    write_json_file(eval() / "timing/0.json", record);
    m_run.events.timings = nlohmann::json::array({{{"event", "timing"}, {"shape_idx", 0}, {"record", record}}});
  }
  arbiter::judge::judgement judge() { return arbiter::judge::judge({m_problem, m_context, m_run, ref(), eval()}); }

  fs::path m_root;
  arbiter::judge::judge_context m_context{"cpu", {catalog::shape{"n3", {}, nlohmann::json::object()}}, 3, true};
  catalog::problem m_problem;
  arbiter::judge::candidate_run m_run;
};

[[maybe_unused]] bool has_finding(const arbiter::judge::judgement& j, const std::string& pattern) {
  return std::any_of(j.findings.begin(), j.findings.end(), [&](const auto& f) { return f.pattern == pattern; });
}

[[maybe_unused]] std::string evidence_of(const arbiter::judge::judgement& j, const std::string& pattern) {
  for (const auto& f : j.findings)
    if (f.pattern == pattern) return f.evidence;
  return "";
}

} // namespace
