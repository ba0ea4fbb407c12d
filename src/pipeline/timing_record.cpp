// The timing records of a shape as the judge reads them: the reference's file and the candidate's
// record on the channel (docs/protocol.md). Both are bytes a runner process wrote, the candidate's
// under its own control.
#include "detail/judge.hpp"

#include "arbiter/common/json_field.hpp"
#include "arbiter/common/json_number.hpp"

#include <fstream>
#include <limits>

namespace arbiter::pipeline::detail {

namespace fs = std::filesystem;

namespace {

// A field the runtime writes as null when it has no finite value (rel_noise of fewer than two
// samples, a median of zero: the stream-hold fallback of a call that synchronises; no clock read)
// reads as none, or as fallback.
double number_or(const nlohmann::json& doc, const char* key, double fallback) { return number_at(doc, key).value_or(fallback); }

// A count: 0 where it is missing, not a number or past what a count holds (a record's 1e300).
std::int64_t count_or_zero(const nlohmann::json& doc, const char* key) { return integer_or<std::int64_t>(doc, key, 0); }

} // namespace

std::optional<nlohmann::json> channel_record(const runner_events& events, std::size_t shape_idx) {
  const auto found = shape_events(events.timings, shape_idx);
  if (found.empty() || !found.front()->contains("record")) return std::nullopt;
  return found.front()->at("record");
}

nlohmann::json read_timing_json(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(in, nullptr, false);
}

std::optional<store::measurement_record> timing_record(const nlohmann::json& t) {
  if (t.is_discarded() || !t.is_object() || !t.contains("median_ms")) return std::nullopt;
  store::measurement_record m;
  m.clock = string_or(t, "clock");
  m.median_ms = number_or(t, "median_ms", 0.0);
  m.p10_ms = number_or(t, "p10_ms", 0.0);
  m.p90_ms = number_or(t, "p90_ms", 0.0);
  m.mean_ms = number_or(t, "mean_ms", 0.0);
  m.rel_noise = number_or(t, "rel_noise", std::numeric_limits<double>::infinity()); // unknown: no bound
  m.samples = count_or_zero(t, "samples");
  m.method = string_or(t, "method");
  m.host_median_ms = number_at(t, "host_median_ms");
  m.throttled = count_or_zero(t, "throttled_samples");
  m.sm_clock_mhz = number_at(t, "sm_clock_mhz");
  m.power_capped = count_or_zero(t, "power_capped_samples");
  return m;
}

} // namespace arbiter::pipeline::detail
