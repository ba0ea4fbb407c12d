#pragma once
/// The timing loop behind arb_time: warm-up, then samples until the stopping rule holds
/// (docs/protocol.md, "Timing"), and the JSON it leaves in timing/<shape_idx>.json.
#include "arbiter/runtime/kernel_clock.hpp"
#include "arbiter/runtime/sample_clock.hpp"
#include "arbiter/runtime/timing_record.hpp"
#include "arbiter/runtime/timing_stats.hpp"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace arbiter::runtime {

/// Every how many samples a host-latency call is made (sample 0 included).
inline constexpr int64_t k_host_latency_every = 4;
/// The most warm-up calls stop_rule::warmup_time_s adds: a kernel heavy enough to move the GPU's
/// power state fills the time with fewer (a 0.3 ms call with its flush needed about 600 for 0.3 s
/// on an H200, where 256 cut its warm-up short); a tiny one would otherwise add tens of thousands
/// of probe windows.
inline constexpr int64_t k_max_timed_warmups = 2048;

/// The sampling loop's span, from before its first sample to after its last, on two clocks: the
/// one the loop reads (`wall`, steady_clock unless a test injects one) and the kernel's monotonic
/// clock read by kernel_monotonic_seconds. A clock patched in the process makes them disagree.
struct clock_check {
  double sample_clock_s = NAN; ///< the span on the loop's clock
  double kernel_clock_s = NAN; ///< the same span on the kernel's CLOCK_MONOTONIC
  std::string kernel_read;     ///< kernel_clock_source(): how the kernel clock was read
};

/// Everything one timing run measured.
struct timing_run {
  std::string device;
  std::string clock;
  clock_info facts;   ///< method, fallback, floor, clock monitor
  int32_t warmup = 0; ///< warm-up calls made (warmup_calls, more with rule.warmup_time_s)
  stop_reason stop = stop_reason::max_samples;
  timing_stats stats;                  ///< over times_ms
  std::vector<double> times_ms;        ///< every kept sample, in the order taken
  std::vector<double> throttled_ms;    ///< samples discarded because the device throttled
  bool all_throttled = false;          ///< every sample throttled: stats are over them, flagged
  std::vector<int64_t> dropped_idx;    ///< sample indices not in times_ms, ascending
  std::vector<double> host_ms;         ///< host latency samples (cuda)
  int64_t held = 0;                    ///< unthrottled samples queued behind the stream hold
  int64_t power_capped = 0;            ///< samples taken under the software power cap
  std::vector<int64_t> capped_idx;     ///< their sample indices
  std::vector<unsigned> sample_sm_mhz; ///< SM clock after each sample, in order; 0 where unknown
  double rest_ratio = 0;               ///< the rule's rest_ratio
  double rest_s = 0;                   ///< seconds rested after paced calls (stop_rule::rest_ratio)
  clock_check check;                   ///< the loop's span on its own clock and on the kernel's
};

/// Window marks for an evidence probe in the process (the CUPTI probe, docs/probe.md): begin
/// before and end after each warm-up, sample and host-latency call. No-ops by default.
class window_marks {
 public:
  virtual ~window_marks() = default;
  virtual void begin(const char* label, int64_t index) = 0;
  virtual void end() = 0;
};

/// One forward call; call_idx counts warm-up calls first, then samples. Nonzero means failure.
using call_fn = std::function<int(int64_t call_idx)>;
/// Seconds on a monotonic clock; injectable so the stopping rule is testable without waiting.
using wall_fn = std::function<double()>;

/// Monotonic host time in seconds (std::chrono::steady_clock).
double steady_seconds();

/// Waits the given seconds; injectable so that a test's rests advance its fake wall clock.
using rest_fn = std::function<void(double seconds)>;

/// Sleeps the calling thread for the given seconds (std::this_thread::sleep_for).
void sleep_seconds(double seconds);

/// What a run does around its calls besides timing them: probe window marks, a callback after
/// each call's timed span (outside all timing), both optional; the reference clock of the
/// clock check, read once before the first sample and once after the last; and the wait of
/// stop_rule::rest_ratio.
struct timing_hooks {
  window_marks* marks = nullptr;
  call_fn after_call;
  wall_fn kernel_clock = kernel_monotonic_seconds;
  rest_fn rest = sleep_seconds;
};

/// Runs warmup_calls untimed calls (and more, each prepared, while rule.warmup_time_s lasts), then
/// samples through clock until should_stop() holds; at least one sample is always taken. Throttled
/// samples are left out of the stats (dropped_idx), power-capped ones kept and counted. Throws
/// runtime_failure(ARB_E_ARG) for an invalid rule,
/// ARB_E_CALLBACK when a call returns nonzero, and whatever the clock throws.
timing_run run_timing(const stop_rule& rule, int32_t warmup_calls, sample_clock& clock, const call_fn& call,
                      const wall_fn& wall = steady_seconds, const timing_hooks& hooks = {});

/// The run as its timing record (timing_record.hpp).
timing_record record_of(const timing_run& run);

/// The run's record as one line of JSON (to_json of record_of), as arb_time writes it.
std::string timing_json(const timing_run& run);

/// Writes a record's text (timing_json) to path through a temporary file and a rename. Throws
/// runtime_failure(ARB_E_IO) naming the file.
void write_timing_json(const std::string& path, const std::string& text);

} // namespace arbiter::runtime
