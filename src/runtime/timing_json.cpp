#include "arbiter/runtime/arbiter_runtime.h"
#include "arbiter/runtime/timing.hpp"
#include "arbiter/runtime/timing_record.hpp"
#include "failure.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace arbiter::runtime {

namespace {

std::optional<double> finite_or_none(double value) { return std::isfinite(value) ? std::optional(value) : std::nullopt; }

std::optional<double> median_or_none(const std::vector<double>& values) {
  return values.empty() ? std::nullopt : std::optional(summarize_samples(values).median_ms);
}

// How the samples were taken: method, hold fallback, clock floor, host latency, throttling.
void set_method(timing_record& r, const timing_run& run) {
  const clock_info& f = run.facts;
  r.method = f.method;
  r.fallback = f.fallback;
  r.held_samples = run.held;
  r.floor_ms = finite_or_none(f.floor_ms);
  r.empty_kernel_ms = finite_or_none(f.empty_kernel_ms);
  r.host_median_ms = median_or_none(run.host_ms);
  r.host_samples = static_cast<std::int64_t>(run.host_ms.size());
  r.throttled_samples = static_cast<std::int64_t>(run.throttled_ms.size());
  r.all_throttled = run.all_throttled;
  r.power_capped_samples = run.power_capped;
  r.rest_ratio = run.rest_ratio;
  r.rest_s = run.rest_s;
  r.clock_monitor = f.monitor;
  std::vector<double> mhz; // the known readings
  for (const unsigned reading : run.sample_sm_mhz)
    if (reading) mhz.push_back(reading);
  r.sm_clock_mhz = median_or_none(mhz);
  r.max_sm_clock_mhz = f.max_sm_mhz ? std::optional<std::int64_t>(f.max_sm_mhz) : std::nullopt;
}

// Each sample's state by its index (the probe's window index): the clock read after it, whether the
// power cap held it, and which ones the stats leave out (throttled).
void set_samples(timing_record& r, const timing_run& run) {
  r.times_ms = run.times_ms;
  r.host_ms = run.host_ms;
  r.throttled_ms = run.throttled_ms;
  for (const unsigned reading : run.sample_sm_mhz)
    r.sample_sm_mhz.push_back(reading ? std::optional<std::int64_t>(reading) : std::nullopt);
  r.power_capped_idx = run.capped_idx;
  r.dropped_idx = run.dropped_idx;
}

} // namespace

timing_record record_of(const timing_run& run) {
  const timing_stats& stats = run.stats;
  timing_record r;
  r.device = run.device;
  r.clock = run.clock;
  r.samples = stats.samples;
  r.warmup = run.warmup;
  r.median_ms = stats.median_ms;
  r.p10_ms = stats.p10_ms;
  r.p90_ms = stats.p90_ms;
  r.mean_ms = stats.mean_ms;
  r.min_ms = stats.min_ms;
  r.max_ms = stats.max_ms;
  r.rel_noise = finite_or_none(stats.rel_noise);
  r.stop = stop_reason_name(run.stop);
  set_method(r, run);
  // The loop's span on its own clock and on the kernel's (docs/measurement.md, "Clock check").
  r.clock_check = {finite_or_none(run.check.sample_clock_s), finite_or_none(run.check.kernel_clock_s), run.check.kernel_read};
  set_samples(r, run);
  return r;
}

std::string timing_json(const timing_run& run) { return to_json(record_of(run)).dump() + "\n"; }

void write_timing_json(const std::string& path, const std::string& text) {
  const std::string tmp_path = path + ".tmp";
  std::FILE* file = std::fopen(tmp_path.c_str(), "wb");
  if (!file) fail(ARB_E_IO, "timing " + path + ": cannot create: " + std::strerror(errno));
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed || std::rename(tmp_path.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(tmp_path.c_str());
    fail(ARB_E_IO, "timing " + path + ": write failed: " + reason);
  }
}

} // namespace arbiter::runtime
