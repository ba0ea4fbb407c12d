#pragma once
/// The timing loop behind arb_time: warm-up, then samples until the stopping rule holds
/// (docs/protocol.md, "Timing"), and the JSON it leaves in timing/<shape_idx>.json.
#include "arbiter/runtime/sample_clock.hpp"
#include "arbiter/runtime/timing_stats.hpp"

#include <functional>
#include <string>
#include <vector>

namespace arbiter::runtime {

/// Everything one timing run measured.
struct timing_run {
  std::string device;
  std::string clock;
  int32_t warmup = 0;
  stop_reason stop = stop_reason::max_samples;
  timing_stats stats;
  std::vector<double> times_ms; ///< every sample, in the order taken
};

/// One forward call; call_idx counts warm-up calls first, then samples. Nonzero means failure.
using call_fn = std::function<int(int64_t call_idx)>;
/// Seconds on a monotonic clock; injectable so the stopping rule is testable without waiting.
using wall_fn = std::function<double()>;

/// Monotonic host time in seconds (std::chrono::steady_clock).
double steady_seconds();

/// Runs warmup_calls untimed calls, then samples through clock until should_stop() holds; at
/// least one sample is always taken. Throws runtime_failure(ARB_E_ARG) for an invalid rule,
/// ARB_E_CALLBACK when a call returns nonzero, and whatever the clock throws.
timing_run run_timing(const stop_rule& rule, int32_t warmup_calls, sample_clock& clock, const call_fn& call,
                      const wall_fn& wall = steady_seconds);

/// The run as the JSON object of docs/protocol.md (rel_noise null when undefined).
std::string timing_json(const timing_run& run);

/// Writes timing_json(run) to path through a temporary file and a rename. Throws
/// runtime_failure(ARB_E_IO) naming the file.
void write_timing_json(const std::string& path, const timing_run& run);

} // namespace arbiter::runtime
