// The judge's readers of records a runner process wrote — the timing record, the event channel, the
// probe's evidence — given members of the wrong type or numbers out of range, as a candidate may
// write them (fuzz/: each case here is an input the fuzzers once crashed on).
#include "arbiter/common/frames.hpp"
#include "arbiter/judge/events.hpp"
#include "detail/timing_record.hpp"
#include "detail/probe_evidence.hpp"
#include "evidence_json.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace arbiter;
using namespace arbiter::judge;
using namespace arbiter::judge::detail;

namespace {

// The record's own reading is tested with it (tests/unit/runtime/timing_record_test.cpp); here its
// measurement row, as the judge stores it.
TEST(timing_record, a_forged_records_row_reads_unknown_noise_as_no_bound) {
  const auto record = arbiter::runtime::parse_timing_record(
      nlohmann::json::parse(R"({"median_ms": 1.5, "clock": 7, "samples": "10", "throttled_samples": 2, "rel_noise": null})"));
  ASSERT_TRUE(record);
  const auto row = measurement_of(*record);
  EXPECT_EQ(row.median_ms, 1.5);
  EXPECT_EQ(row.clock, "");
  EXPECT_EQ(row.samples, 0);
  EXPECT_EQ(row.throttled, 2);
  EXPECT_TRUE(std::isinf(row.rel_noise));
}

TEST(timing_record, held_only_where_every_kept_sample_was) {
  arbiter::runtime::timing_record record;
  EXPECT_FALSE(timer_held(record)); // no samples
  record.samples = 5;
  record.held_samples = 4;
  EXPECT_FALSE(timer_held(record));
  record.held_samples = 5;
  EXPECT_TRUE(timer_held(record));
}

TEST(events, an_event_name_that_is_not_a_string_is_no_event) {
  const std::string channel = encode_frame(0, {{"event", 42}}) + encode_frame(1, {{"event", "done"}});
  const runner_events events = events_of(decode_frames(channel));
  EXPECT_FALSE(events.fault);
  EXPECT_TRUE(events.done);
  EXPECT_EQ(events.last_event, "done");
}

class probe_record : public ::testing::Test {
 protected:
  fs::path write(const std::string& text) {
    const fs::path file = fs::temp_directory_path() / ("arbiter-records-test-" + std::to_string(getpid()) + ".json");
    std::ofstream(file) << text;
    m_files.push_back(file);
    return file;
  }
  void TearDown() override {
    for (const auto& f : m_files) fs::remove(f);
  }

 private:
  std::vector<fs::path> m_files;
};

TEST_F(probe_record, a_version_that_is_not_the_integer_1_is_no_evidence) {
  EXPECT_TRUE(read_probe(write(R"({"version": "1"})")).is_discarded());
  EXPECT_TRUE(read_probe(write(R"({"version": 1e300})")).is_discarded());
  EXPECT_FALSE(read_probe(write(R"({"version": 1})")).is_discarded());
}

TEST_F(probe_record, members_of_the_wrong_type_or_out_of_range_read_as_missing) {
  const auto doc = read_probe(write(R"({"version": 1, "totals": {"dropped_records": "3"}, "graphs": 5,
    "contexts": "one", "modules_loaded": 1e300, "threads_max": [],
    "outside_windows": {"after": [{"label": 2, "group": "0"}, {"label": "sample", "group": 1e300}]},
    "windows": [{"group": "0", "label": 1}, {"group": 1e300, "label": "sample"},
                {"group": 0, "label": "sample", "index": "2", "kernels": 1, "span_ns": 100, "threads": 1e300}],
    "kernels": [{"window": "1", "name": 3}, {"window": 1e300, "name": "ampere_sgemm"}]})"));
  ASSERT_FALSE(doc.is_discarded());
  const std::vector<std::string> shapes{"s"};
  const auto facts = probe_facts(doc, shapes, runner_events{}, catalog::rules{}, doc);
  ASSERT_EQ(facts.shapes.size(), 1u);
  EXPECT_EQ(facts.shapes[0].samples, 1); // the one window whose group is the integer 0
  EXPECT_TRUE(facts.library_kernels.empty());
  const auto summary = probe_summary(doc, shapes, facts);
  EXPECT_EQ(summary["contexts"], 0);
  EXPECT_EQ(summary["modules_loaded"], 0);
  EXPECT_EQ(summary["shapes"][0]["labels"]["sample"]["threads_max"], 0);
  EXPECT_TRUE(sample_spans(doc, 0));
}

TEST_F(probe_record, outside_windows_that_are_not_an_object_count_nothing) {
  const auto doc = read_probe(write(R"({"version": 1, "outside_windows": 7})"));
  const auto facts = probe_facts(doc, {"s"}, runner_events{}, catalog::rules{}, doc);
  EXPECT_EQ(facts.shapes.at(0).outside_timed_kernels, 0u);
}

// The probe writes its evidence (src/probe/evidence_json.cpp, inside the candidate's process) and
// the judge reads it back (probe_evidence.cpp): two programs over one file. Each member the judge
// reads is written here with a value of its own and must come back in the judge's facts, so that a
// member renamed on one side fails here instead of reading as missing.
arbiter::probe::window_stats probe_window(const char* label, std::int64_t index) {
  arbiter::probe::window_stats w;
  w.label = label;
  w.group = 0;
  w.index = index;
  w.begin_ns = 1'000;
  w.end_ns = 9'000;
  w.last_correlation = 10; // closed
  w.harness_stream = 7;
  w.launches = w.api_kernel_launches = w.kernels = 2;
  w.busy_ns = 3'000;
  w.first_start_ns = 2'000;
  w.last_end_ns = 6'000;
  w.streams = {7, 9};
  w.off_stream_kernels = 1;
  w.after_end_kernels = 1;
  w.after_end_max_ns = 20'000; // past guard::k_escape_slack_ns
  w.threads = 4;
  return w;
}

TEST_F(probe_record, what_the_probe_writes_is_what_the_judge_reads) {
  arbiter::probe::evidence e;
  e.graphs_launched = 3;
  e.windows_dropped = 2;
  e.witness = {5, 1, {"callbacks off at a marker"}, 4, 6};
  e.windows = {probe_window("case", 0), probe_window("sample", 0), probe_window("sample", 1)};
  e.kernel_details = {{"ampere_sgemm_128x64_nn", {7, 1, 0, {1, 1, 1}, {128, 1, 1}, 2'000, 2'500}, 1}};
  e.outside_kernels = 9;
  e.outside_busy_ns = 900;
  e.outside_gaps = {{"sample", 0, 9, 900}};
  const auto doc = read_probe(write(arbiter::probe::evidence_json(e)));
  ASSERT_FALSE(doc.is_discarded());
  runner_events events;
  events.timings = nlohmann::json::array({{{"event", "timing"},
                                           {"shape_idx", 0},
                                           {"record", {{"median_ms", 0.004}, {"samples", 2}, {"sample_sm_mhz", {1980, 1980}}}}}});
  const auto facts = probe_facts(doc, {"s"}, events, catalog::rules{});
  ASSERT_EQ(facts.shapes.size(), 1u);
  const auto& s = facts.shapes[0];
  EXPECT_EQ(s.cases_with_kernels, 1); // label, group, kernels
  EXPECT_EQ(s.samples, 2);            // the timed windows
  EXPECT_EQ(s.sample_windows, 2);     // and their indices, 0 and 1
  EXPECT_EQ(s.sample_indices_missing + s.sample_indices_extra, 0);
  EXPECT_EQ(s.samples_off_stream, 2); // streams, harness_stream, off_stream_kernels
  EXPECT_EQ(s.samples_escaping, 2);   // after_end_kernels, after_end_max_ns
  EXPECT_EQ(s.max_kernels_per_call, 2u);
  ASSERT_TRUE(s.span_median_ms); // first_start_ns, last_end_ns
  EXPECT_DOUBLE_EQ(*s.span_median_ms, 0.004);
  EXPECT_EQ(s.outside_timed_kernels, 9u);      // outside_windows.after
  EXPECT_EQ(facts.graph_launches, 3u);         // graphs.launched
  EXPECT_EQ(facts.witness.forged_markers, 4u); // witness
  EXPECT_EQ(facts.witness.refused_claims, 6u);
  EXPECT_EQ(facts.witness.callbacks_disabled, 1u);
  EXPECT_NE(facts.witness.notes.find("callbacks off at a marker"), std::string::npos);
  EXPECT_EQ(facts.witness.windows_dropped, 2u);
  EXPECT_EQ(facts.library_kernels, std::vector<std::string>{"ampere_sgemm_128x64_nn"}); // kernels[].name, window
  EXPECT_TRUE(facts.complete);                                                          // totals.dropped_records
}

} // namespace
