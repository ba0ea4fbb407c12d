#pragma once
/// The clock of the timing loop: what happens around one timed forward call. One interface, two
/// variants (clock_cpu.cpp, clock_cuda.cpp), and fakes in the tests.
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace arbiter::runtime {

/// One timed call as the clock saw it.
struct clock_sample {
  double ms = 0;             ///< the reported time: device time on cuda, host time on cpu
  bool held = false;         ///< cuda: queued behind the stream hold (host launch overhead hidden)
  bool throttled = false;    ///< the device slowed its clock for heat or a power brake: discarded
  bool power_capped = false; ///< the software power cap held the clock down (kept, counted)
  unsigned sm_mhz = 0;       ///< SM clock read right after the sample; 0 when unknown
};

/// What the clock is, for the timing JSON (docs/protocol.md).
struct clock_info {
  std::string method;           ///< "held_events", "events" or "steady_clock"
  std::string fallback;         ///< why the hold was given up ("" when it was not)
  std::string monitor;          ///< "nvml", or why the SM clock is not read
  double floor_ms = NAN;        ///< held events with nothing between them (the clock's own floor)
  double empty_kernel_ms = NAN; ///< held events around one empty kernel
  unsigned max_sm_mhz = 0;
};

class sample_clock {
 public:
  virtual ~sample_clock() = default;

  /// "cpu" or "cuda", as written in the timing JSON.
  virtual const char* device_name() const noexcept = 0;
  /// "steady_clock" or "cuda_event", as written in the timing JSON.
  virtual const char* clock_name() const noexcept = 0;
  /// Method, fallback and floor, as known now (the fallback may appear during sampling).
  virtual clock_info info() const = 0;

  /// Untimed work before sample sample_idx: flush the caches (with contents that differ per
  /// sample) and synchronise the whole device. Throws runtime_failure on a device error.
  virtual void prepare(int64_t sample_idx) = 0;

  /// Runs call once between the clock's start and end marks. Exceptions from call propagate;
  /// device errors throw runtime_failure.
  virtual clock_sample time_call(const std::function<void()>& call) = 0;

  /// Whether host latency differs from time_call's time (cuda) and is measured by time_host.
  virtual bool measures_host_latency() const noexcept = 0;
  /// Host latency of one call: from its start on the host until the device is idle, in ms.
  virtual double time_host(const std::function<void()>& call) = 0;
};

/// Host clock: flush = overwrite a flush_bytes buffer (0: 64 MiB), timing = steady_clock.
std::unique_ptr<sample_clock> make_cpu_clock(uint64_t flush_bytes);

/// Device clock on the calling thread's current CUDA context (the one PyTorch made current):
/// flush = cuMemsetD32Async over flush_bytes (0: 2 × L2) on stream plus a persisting-L2 reset;
/// timing = events recorded on stream behind the stream hold (stream_hold.hpp), inside a
/// cuCtxSynchronize bracket. A call that waits for the device turns the hold off for the rest
/// of the run (info().fallback says so). Throws runtime_failure(ARB_E_CUDA) when the driver or
/// a current context is missing.
std::unique_ptr<sample_clock> make_cuda_clock(uint64_t stream, uint64_t flush_bytes);

} // namespace arbiter::runtime
