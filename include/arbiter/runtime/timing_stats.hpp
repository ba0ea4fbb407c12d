#pragma once
/// Statistics and the stopping rule of the timing loop (docs/protocol.md, "Timing"), kept apart
/// from any clock so that they are tested on known sample sets.
#include <cstdint>
#include <optional>
#include <span>

namespace arbiter::runtime {

/// Why the sampling loop ended; the values are those of arb_timing_result::stop.
enum class stop_reason : int32_t { noise = 0, max_time = 1, max_samples = 2 };

/// "noise", "max_time" or "max_samples", as written in the timing JSON.
const char* stop_reason_name(stop_reason reason) noexcept;

/// Summary of a set of samples, all in milliseconds.
struct timing_stats {
  int64_t samples = 0;
  double median_ms = 0, p10_ms = 0, p90_ms = 0, mean_ms = 0, min_ms = 0, max_ms = 0;
  double stddev_ms = 0; ///< sample standard deviation (n - 1); 0 for one sample
  double rel_noise = 0; ///< 1.2533 × stddev / sqrt(n) / median; +inf when undefined (n < 2)
};

/// Quantile q ∈ [0, 1] of sorted values, interpolating linearly between order statistics
/// (numpy's default). sorted must not be empty.
double quantile_sorted(std::span<const double> sorted, double q);

/// Summarises times_ms (any order). Throws std::invalid_argument when it is empty.
timing_stats summarize_samples(std::span<const double> times_ms);

/// The stopping rule's parameters (arb_timing_config's fields of the same names). No defaults of
/// its own: a campaign's come from timing_options (timing_options.hpp, arb_timing_defaults).
struct stop_rule {
  int64_t min_samples = 0;
  int64_t max_samples = 0;
  double min_time_s = 0;
  double max_time_s = 0;
  double target_rel_noise = 0;
  /// Warm-up by time, after the warm-up calls: more warm-up calls, each prepared like a sample
  /// (flush, synchronise, rest), until this much wall time has passed since the first. A GPU under
  /// a heavy kernel moves from its boost clock toward the power cap within the first ~0.1 s of
  /// load; sampling after that measures the settled state in every process. 0: none.
  double warmup_time_s = 0;
  /// Rest after each paced call (a timed warm-up call, a sample, a host-latency call): the host
  /// waits this many times the call's wall time, its flush and synchronisation included, with the
  /// device idle. It keeps a kernel that would sit at the power cap under back-to-back calls at the
  /// clock it holds at that duty cycle, where the cap's equilibrium differs from minute to minute
  /// (docs/measurement.md, "Sampling"). Rests count toward min_time_s and max_time_s, and one is cut
  /// where it would outlast its phase (warmup_time_s, max_time_s). 0: none.
  double rest_ratio = 0;
};

/// Whether the loop stops after `samples` samples and `elapsed_s` seconds of sampling wall time,
/// given the current relative noise. Noise wins over the caps when both hold, so a run that
/// converges on its last permitted sample reports "noise".
std::optional<stop_reason> should_stop(const stop_rule& rule, int64_t samples, double elapsed_s, double rel_noise);

} // namespace arbiter::runtime
