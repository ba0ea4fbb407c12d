// The timing records of a shape as the judge reads them: the reference's file and the candidate's
// record on the channel (docs/protocol.md). Both are bytes a runner process wrote, the candidate's
// under its own control; runtime::parse_timing_record reads them without trusting their types.
#include "detail/timing_record.hpp"

#include <algorithm>
#include <fstream>
#include <limits>

namespace arbiter::judge::detail {

namespace fs = std::filesystem;

std::optional<nlohmann::json> channel_record(const runner_events& events, std::size_t shape_idx) {
  const auto found = shape_events(events.timings, shape_idx);
  if (found.empty() || !found.front()->contains("record")) return std::nullopt;
  return found.front()->at("record");
}

std::optional<runtime::timing_record> channel_timing(const runner_events& events, std::size_t shape_idx) {
  const auto record = channel_record(events, shape_idx);
  return record ? runtime::parse_timing_record(*record) : std::nullopt;
}

nlohmann::json read_timing_json(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(in, nullptr, false);
}

std::optional<runtime::timing_record> read_timing_file(const fs::path& file) {
  return runtime::parse_timing_record(read_timing_json(file));
}

store::measurement_record measurement_of(const runtime::timing_record& t) {
  store::measurement_record m;
  m.clock = t.clock;
  m.median_ms = t.median_ms;
  m.p10_ms = t.p10_ms;
  m.p90_ms = t.p90_ms;
  m.mean_ms = t.mean_ms;
  m.rel_noise = t.rel_noise.value_or(std::numeric_limits<double>::infinity()); // unknown: no bound
  m.samples = t.samples;
  m.method = t.method;
  m.host_median_ms = t.host_median_ms;
  m.throttled = t.throttled_samples;
  m.sm_clock_mhz = t.sm_clock_mhz;
  m.power_capped = t.power_capped_samples;
  return m;
}

std::vector<std::int64_t> dropped_samples(const runtime::timing_record& record) {
  auto dropped = record.dropped_idx;
  std::sort(dropped.begin(), dropped.end());
  return dropped;
}

bool timer_held(const runtime::timing_record& record) { return record.samples > 0 && record.held_samples >= record.samples; }

} // namespace arbiter::judge::detail
