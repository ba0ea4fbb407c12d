#include "arbiter/runtime/arbiter_runtime.h"
#include "arbiter/runtime/timing.hpp"
#include "failure.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace arbiter::runtime {

namespace {

nlohmann::json finite_or_null(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(); }

nlohmann::json median_or_null(const std::vector<double>& values) {
  return values.empty() ? nlohmann::json() : nlohmann::json(summarize_samples(values).median_ms);
}

// How the samples were taken: method, hold fallback, clock floor, host latency, throttling.
void add_method(nlohmann::ordered_json& doc, const timing_run& run) {
  const clock_info& f = run.facts;
  doc["method"] = f.method;
  if (!f.fallback.empty()) doc["fallback"] = f.fallback;
  doc["held_samples"] = run.held;
  doc["floor_ms"] = finite_or_null(f.floor_ms);
  doc["empty_kernel_ms"] = finite_or_null(f.empty_kernel_ms);
  doc["host_median_ms"] = median_or_null(run.host_ms);
  doc["host_samples"] = run.host_ms.size();
  doc["throttled_samples"] = run.throttled_ms.size();
  doc["all_throttled"] = run.all_throttled;
  doc["power_capped_samples"] = run.power_capped;
  doc["rest_ratio"] = run.rest_ratio;
  doc["rest_s"] = run.rest_s;
  doc["clock_monitor"] = f.monitor;
  std::vector<double> mhz; // the known readings
  for (const unsigned reading : run.sample_sm_mhz)
    if (reading) mhz.push_back(reading);
  doc["sm_clock_mhz"] = median_or_null(mhz);
  doc["max_sm_clock_mhz"] = f.max_sm_mhz ? nlohmann::json(f.max_sm_mhz) : nlohmann::json();
}

// Each sample's state by its index (the probe's window index): the clock read after it, whether the
// power cap held it, and which ones the stats leave out (throttled).
void add_sample_states(nlohmann::ordered_json& doc, const timing_run& run) {
  nlohmann::json mhz = nlohmann::json::array();
  for (const unsigned reading : run.sample_sm_mhz) mhz.push_back(reading ? nlohmann::json(reading) : nlohmann::json());
  doc["sample_sm_mhz"] = std::move(mhz);
  doc["power_capped_idx"] = run.capped_idx;
  doc["dropped_idx"] = run.dropped_idx;
}

// The loop's span on its own clock and on the kernel's (docs/measurement.md, "Clock check").
nlohmann::ordered_json clock_check_json(const clock_check& check) {
  nlohmann::ordered_json doc;
  doc["sample_clock_s"] = finite_or_null(check.sample_clock_s);
  doc["kernel_clock_s"] = finite_or_null(check.kernel_clock_s);
  doc["kernel_read"] = check.kernel_read;
  return doc;
}

} // namespace

std::string timing_json(const timing_run& run) {
  const timing_stats& stats = run.stats;
  nlohmann::ordered_json doc;
  doc["device"] = run.device;
  doc["clock"] = run.clock;
  doc["samples"] = stats.samples;
  doc["warmup"] = run.warmup;
  doc["median_ms"] = stats.median_ms;
  doc["p10_ms"] = stats.p10_ms;
  doc["p90_ms"] = stats.p90_ms;
  doc["mean_ms"] = stats.mean_ms;
  doc["min_ms"] = stats.min_ms;
  doc["max_ms"] = stats.max_ms;
  doc["rel_noise"] = finite_or_null(stats.rel_noise);
  doc["stop"] = stop_reason_name(run.stop);
  add_method(doc, run);
  doc["clock_check"] = clock_check_json(run.check);
  doc["times_ms"] = run.times_ms;
  doc["host_ms"] = run.host_ms;
  doc["throttled_ms"] = run.throttled_ms;
  add_sample_states(doc, run);
  return doc.dump() + "\n";
}

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
