// The timing record's writer and reader (include/arbiter/runtime/timing_record.hpp): what the runtime
// writes reads back as itself, a record another process forged reads without trusting its types,
// and the one list of fields is the Python runner's list too.
#include "arbiter/runtime/timing.hpp"
#include "arbiter/runtime/timing_record.hpp"
#include "../python_list.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace arbiter::runtime;

namespace {

timing_record full_record() {
  timing_record r;
  r.device = "cuda";
  r.clock = "cuda_event";
  r.samples = 3;
  r.warmup = 2;
  r.median_ms = 1.25;
  r.p10_ms = 1.2;
  r.p90_ms = 1.4;
  r.mean_ms = 1.3;
  r.min_ms = 1.1;
  r.max_ms = 1.5;
  r.rel_noise = 0.01;
  r.stop = "noise";
  r.method = "events";
  r.fallback = "the call synchronised";
  r.held_samples = 0;
  r.floor_ms = 0.001;
  r.host_median_ms = 1.5;
  r.host_samples = 1;
  r.throttled_samples = 1;
  r.power_capped_samples = 1;
  r.rest_ratio = 0.5;
  r.rest_s = 0.004;
  r.clock_monitor = "nvml";
  r.sm_clock_mhz = 1980;
  r.max_sm_clock_mhz = 1980;
  r.clock_check = {0.01, 0.0101, "vdso"};
  r.times_ms = {1.1, 1.25, 1.5};
  r.host_ms = {1.5};
  r.throttled_ms = {2.0};
  r.sample_sm_mhz = {1980, std::nullopt, 1980, 1965};
  r.power_capped_idx = {3};
  r.dropped_idx = {1};
  return r;
}

TEST(timing_record, reads_back_as_written) {
  const timing_record r = full_record();
  const auto text = to_json(r).dump();
  EXPECT_EQ(parse_timing_record(nlohmann::json::parse(text)), r);
  timing_record bare;
  bare.median_ms = 0; // the stream-hold fallback of a call that synchronises: a median of zero
  EXPECT_EQ(parse_timing_record(nlohmann::json::parse(to_json(bare).dump())), bare);
}

TEST(timing_record, writes_the_listed_fields_in_their_order) {
  const auto doc = to_json(full_record());
  std::vector<std::string> written;
  for (const auto& [key, value] : doc.items()) written.push_back(key);
  EXPECT_EQ(written, std::vector<std::string>(timing_record_fields.begin(), timing_record_fields.end()));
  EXPECT_FALSE(to_json(timing_record{}).contains("fallback")); // only where the hold was given up
}

TEST(timing_record, the_runs_record_is_the_files_record) {
  timing_run run;
  run.device = "cpu";
  run.clock = "host";
  run.stats.samples = 2;
  run.stats.median_ms = 0.5;
  run.stats.rel_noise = NAN;
  run.times_ms = {0.5, 0.5};
  run.sample_sm_mhz = {0, 1410};
  run.check.kernel_read = "vdso";
  const auto record = record_of(run);
  EXPECT_FALSE(record.rel_noise); // undefined: null in the file, none read back
  EXPECT_EQ(record.sample_sm_mhz, (std::vector<std::optional<std::int64_t>>{std::nullopt, 1410}));
  EXPECT_EQ(parse_timing_record(nlohmann::json::parse(timing_json(run))), record);
}

TEST(timing_record, members_of_the_wrong_type_read_as_missing) {
  const auto r = parse_timing_record(nlohmann::json::parse(
      R"({"median_ms": 1.5, "clock": 7, "method": ["held_events"], "samples": "10", "throttled_samples": {},
          "rel_noise": "low", "all_throttled": 1, "clock_check": [], "times_ms": [1, "2", null, 3],
          "dropped_idx": [2, 1.5, -1, 18446744073709551615], "sample_sm_mhz": [1980, "x", 1980.5]})"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->median_ms, 1.5);
  EXPECT_EQ(r->clock, "");
  EXPECT_EQ(r->method, "");
  EXPECT_EQ(r->samples, 0);
  EXPECT_EQ(r->throttled_samples, 0);
  EXPECT_FALSE(r->rel_noise);
  EXPECT_FALSE(r->all_throttled);
  EXPECT_EQ(r->clock_check, clock_check_record{});
  EXPECT_EQ(r->times_ms, (std::vector<double>{1, 3}));
  EXPECT_EQ(r->dropped_idx, (std::vector<std::int64_t>{2, -1}));
  EXPECT_EQ(r->sample_sm_mhz, (std::vector<std::optional<std::int64_t>>{1980, std::nullopt, std::nullopt})); // one per sample
}

TEST(timing_record, counts_past_an_int64_read_as_zero) {
  const auto r = parse_timing_record(nlohmann::json::parse(
      R"({"median_ms": 2, "samples": 1e300, "throttled_samples": -1e300, "power_capped_samples": 18446744073709551615})"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->samples, 0);
  EXPECT_EQ(r->throttled_samples, 0);
  EXPECT_EQ(r->power_capped_samples, 0);
  EXPECT_EQ(parse_timing_record(nlohmann::json::parse(R"({"median_ms": 2, "samples": 12.0})"))->samples, 12);
}

TEST(timing_record, no_record_without_a_numeric_median) {
  for (const char* text : {R"([])", R"("record")", R"({})", R"({"median_ms": null})", R"({"median_ms": "1.5"})"})
    EXPECT_FALSE(parse_timing_record(nlohmann::json::parse(text))) << text;
  EXPECT_FALSE(parse_timing_record(nlohmann::json(nlohmann::json::value_t::discarded)));
}

// The runner checks each record it hands over against its own list (runtime.check_timing_record):
// the two lists must be one.
TEST(timing_record, the_fields_are_the_runners_list) {
  const auto runner = python_tuple(std::filesystem::path(ARBITER_SOURCE_DIR) / "python" / "arbiter_runner" / "runtime.py",
                                   "TIMING_RECORD_FIELDS");
  ASSERT_FALSE(runner.empty());
  EXPECT_EQ(runner, std::set<std::string>(timing_record_fields.begin(), timing_record_fields.end()));
}

} // namespace
