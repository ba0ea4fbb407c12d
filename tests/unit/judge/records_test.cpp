// The judge's readers of records a runner process wrote — the timing record, the event channel, the
// probe's evidence — given members of the wrong type or numbers out of range, as a candidate may
// write them (fuzz/: each case here is an input the fuzzers once crashed on).
#include "arbiter/common/frames.hpp"
#include "arbiter/judge/events.hpp"
#include "detail/timing_record.hpp"
#include "detail/probe_evidence.hpp"

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

} // namespace
