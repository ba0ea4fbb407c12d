// A stored timing's JSON form (arbiter show --json, the evaluation page, the KernelArena export) and
// the import's reading of it.
#include "arbiter/store/measurement_json.hpp"

#include <gtest/gtest.h>

using namespace arbiter::store;

namespace {

measurement_record cuda_timing() {
  return {"4096x4096", "candidate", "",   "cupti",      0.3015, 0.3010, 0.3030, 0.3018,
          0.0002,      426,         1.25, "cupti_span", 0.396,  2,      1965.0, 358};
}

} // namespace

TEST(measurement_json, every_field_survives_the_round_trip) {
  const measurement_record m = cuda_timing();
  const measurement_record back = measurement_from_json(measurement_json(m));
  EXPECT_EQ(back.shape, m.shape);
  EXPECT_EQ(back.clock, m.clock);
  EXPECT_EQ(back.median_ms, m.median_ms);
  EXPECT_EQ(back.samples, m.samples);
  EXPECT_EQ(back.speedup, m.speedup);
  EXPECT_EQ(back.method, m.method);
  EXPECT_EQ(back.host_median_ms, m.host_median_ms);
  EXPECT_EQ(back.throttled, 2);
  EXPECT_EQ(back.sm_clock_mhz, 1965.0);
  EXPECT_EQ(back.power_capped, 358);
}

TEST(measurement_json, what_was_not_read_is_null_not_zero) {
  measurement_record m = cuda_timing();
  m.speedup.reset();
  m.host_median_ms.reset();
  m.sm_clock_mhz.reset();
  const auto doc = measurement_json(m);
  EXPECT_TRUE(doc["speedup"].is_null());
  EXPECT_TRUE(doc["host_median_ms"].is_null());
  EXPECT_TRUE(doc["sm_clock_mhz"].is_null());
  const measurement_record back = measurement_from_json(doc);
  EXPECT_FALSE(back.speedup || back.host_median_ms || back.sm_clock_mhz);
}

TEST(measurement_json, an_export_written_before_the_clock_state_reads_with_defaults) {
  const nlohmann::ordered_json old = {{"shape", "n1k"},   {"role", "baseline"}, {"baseline", "eager"},      {"clock", "host"},
                                      {"median_ms", 0.5}, {"samples", 10},      {"method", "steady_clock"}, {"throttled", 0}};
  const measurement_record back = measurement_from_json(old);
  EXPECT_EQ(back.role, "baseline");
  EXPECT_EQ(back.median_ms, 0.5);
  EXPECT_FALSE(back.sm_clock_mhz.has_value());
  EXPECT_EQ(back.power_capped, 0);
  EXPECT_EQ(measurement_from_json(nlohmann::ordered_json::object()).role, "candidate"); // the import's default
}
