#include "arbiter/runtime/timing_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace arbiter::runtime {

const char* stop_reason_name(stop_reason reason) noexcept {
  switch (reason) {
  case stop_reason::noise:
    return "noise";
  case stop_reason::max_time:
    return "max_time";
  case stop_reason::max_samples:
    return "max_samples";
  }
  return "unknown";
}

double quantile_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("quantile of no samples");
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<size_t>(std::floor(pos));
  const size_t upper = std::min(lower + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lower);
  return sorted[lower] + frac * (sorted[upper] - sorted[lower]);
}

namespace {

double relative_noise(double stddev, int64_t samples, double median) {
  if (samples < 2) return std::numeric_limits<double>::infinity();
  if (stddev == 0) return 0;
  if (median <= 0) return std::numeric_limits<double>::infinity();
  // Standard error of the median of a normal sample: sqrt(pi/2) × sigma / sqrt(n).
  return 1.2533 * stddev / std::sqrt(static_cast<double>(samples)) / median;
}

} // namespace

timing_stats summarize_samples(std::span<const double> times_ms) {
  if (times_ms.empty()) throw std::invalid_argument("no timing samples");
  std::vector<double> sorted(times_ms.begin(), times_ms.end());
  std::sort(sorted.begin(), sorted.end());
  timing_stats stats;
  stats.samples = static_cast<int64_t>(sorted.size());
  const double n = static_cast<double>(sorted.size());
  stats.mean_ms = std::accumulate(sorted.begin(), sorted.end(), 0.0) / n;
  double squares = 0;
  for (double time_ms : sorted) squares += (time_ms - stats.mean_ms) * (time_ms - stats.mean_ms);
  stats.stddev_ms = sorted.size() > 1 ? std::sqrt(squares / (n - 1)) : 0.0;
  stats.median_ms = quantile_sorted(sorted, 0.5);
  stats.p10_ms = quantile_sorted(sorted, 0.1);
  stats.p90_ms = quantile_sorted(sorted, 0.9);
  stats.min_ms = sorted.front();
  stats.max_ms = sorted.back();
  stats.rel_noise = relative_noise(stats.stddev_ms, stats.samples, stats.median_ms);
  return stats;
}

std::optional<stop_reason> should_stop(const stop_rule& rule, int64_t samples, double elapsed_s, double rel_noise) {
  if (samples >= rule.min_samples && elapsed_s >= rule.min_time_s && rel_noise <= rule.target_rel_noise)
    return stop_reason::noise;
  if (elapsed_s >= rule.max_time_s) return stop_reason::max_time;
  if (samples >= rule.max_samples) return stop_reason::max_samples;
  return std::nullopt;
}

} // namespace arbiter::runtime
