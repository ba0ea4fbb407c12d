#pragma once
/// A campaign's timing settings, with the one set of defaults every reader uses: the pipeline
/// writes them into each job file, the runtime's C ABI hands them out (arb_timing_defaults, which
/// the Python runner and bench/timing_fidelity start from), and check, calibrate and eval override
/// fields of the same struct. docs/measurement.md, "Sampling", says why each value is what it is.
#include "arbiter/runtime/timing_stats.hpp"

#include <cstdint>

namespace arbiter::runtime {

struct timing_options {
  int warmup_calls = 3;
  std::int64_t min_samples = 10;
  std::int64_t max_samples = 1000;
  double min_time_s = 0.1;
  double max_time_s = 2.0;
  double target_rel_noise = 0.01;
  /// Warm-up by time on cuda (stop_rule::warmup_time_s): paced and rested like the samples, so
  /// that the GPU has settled into the clock it holds under them before sampling. Not on cpu.
  double warmup_time_s = 0.3;
  /// The least sampling time on cuda, where it replaces a shorter min_time_s: in the sustained
  /// state the clock wanders over tens of milliseconds, so a median of 0.1 s of samples of an
  /// 8192³ GEMM moved 2.3% between processes on an H200.
  double cuda_min_time_s = 0.5;
  /// The rest after each paced call on cuda (stop_rule::rest_ratio), as a multiple of the call's
  /// wall time: at two-thirds duty a kernel that back-to-back calls hold at the power cap keeps a
  /// steadier clock (a multi-kernel workload's spread across processes on an H200: 0.3% against
  /// 1.2–2.1% without). Not on cpu.
  double cuda_rest_ratio = 0.5;
};

/// What one device's timing loop runs with: the fields of arb_timing_config that a campaign sets.
struct device_timing {
  int warmup_calls = 0;
  stop_rule rule;
};

/// The settings for one device: the warm-up by time, the longer sampling time and the rest after
/// each paced call apply on cuda only.
constexpr device_timing for_device(const timing_options& t, bool cuda) {
  return {t.warmup_calls,
          {t.min_samples, t.max_samples, cuda && t.cuda_min_time_s > t.min_time_s ? t.cuda_min_time_s : t.min_time_s,
           t.max_time_s, t.target_rel_noise, cuda ? t.warmup_time_s : 0.0, cuda ? t.cuda_rest_ratio : 0.0}};
}

} // namespace arbiter::runtime
