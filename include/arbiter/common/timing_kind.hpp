#pragma once
/// The names a timing is labelled with, in one place: the sample clock and the method the runtime
/// writes into its timing record (src/runtime/clock_cpu.cpp, clock_cuda.cpp), the ones the judge
/// gives a time it replaced (the probe's spans, the outside CPU account), and which the runtime
/// writes on which device — a record naming another was not written by the runtime (the judge's
/// channel checks). Header-only: the runtime library uses it without linking arbiter's own.
#include <string_view>

namespace arbiter::timing_kind {

// Sample clocks.
inline constexpr std::string_view clock_steady = "steady_clock";   ///< the host's monotonic clock (cpu)
inline constexpr std::string_view clock_cuda_event = "cuda_event"; ///< CUDA events (cuda)
inline constexpr std::string_view clock_cupti = "cupti";           ///< the probe's kernel spans (the judge's)

// Methods.
inline constexpr std::string_view method_steady = "steady_clock";     ///< cpu: the host clock around each call
inline constexpr std::string_view method_held_events = "held_events"; ///< cuda: events behind the stream hold
inline constexpr std::string_view method_events = "events";           ///< cuda: events, the hold given up
inline constexpr std::string_view method_cupti_span = "cupti_span";   ///< the probe's span per sample (the judge's)
inline constexpr std::string_view method_outside_cpu = "outside_cpu"; ///< the outside batch's CPU account (the judge's)

/// Whether the runtime writes this clock and method into a timing record on device ("cpu", "cuda").
constexpr bool runtime_writes(std::string_view device, std::string_view clock, std::string_view method) {
  if (device == "cpu") return clock == clock_steady && method == method_steady;
  if (device == "cuda") return clock == clock_cuda_event && (method == method_held_events || method == method_events);
  return false;
}

} // namespace arbiter::timing_kind
