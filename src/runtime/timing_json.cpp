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
  doc["times_ms"] = run.times_ms;
  return doc.dump() + "\n";
}

void write_timing_json(const std::string& path, const timing_run& run) {
  const std::string text = timing_json(run);
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
