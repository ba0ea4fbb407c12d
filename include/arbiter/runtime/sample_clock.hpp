#pragma once
/// The clock of the timing loop: what happens around one timed forward call. One interface, two
/// variants (clock_cpu.cpp, clock_cuda.cpp), and fakes in the tests.
#include <cstdint>
#include <functional>
#include <memory>

namespace arbiter::runtime {

class sample_clock {
public:
  virtual ~sample_clock() = default;

  /// "cpu" or "cuda", as written in the timing JSON.
  virtual const char* device_name() const noexcept = 0;
  /// "steady_clock" or "cuda_event", as written in the timing JSON.
  virtual const char* clock_name() const noexcept = 0;

  /// Untimed work before sample sample_idx: flush the caches (with contents that differ per
  /// sample) and synchronise the whole device. Throws runtime_failure on a device error.
  virtual void prepare(int64_t sample_idx) = 0;

  /// Runs call once between the clock's start and end marks and returns the elapsed
  /// milliseconds. Exceptions from call propagate; device errors throw runtime_failure.
  virtual double time_call(const std::function<void()>& call) = 0;
};

/// Host clock: flush = overwrite a flush_bytes buffer (0: 64 MiB), timing = steady_clock.
std::unique_ptr<sample_clock> make_cpu_clock(uint64_t flush_bytes);

/// Device clock on the calling thread's current CUDA context (the one PyTorch made current):
/// flush = cuMemsetD32Async over flush_bytes (0: 2 × L2) on stream plus a persisting-L2 reset,
/// timing = events recorded on stream inside a cuCtxSynchronize bracket. Throws
/// runtime_failure(ARB_E_CUDA) when the driver or a current context is missing.
std::unique_ptr<sample_clock> make_cuda_clock(uint64_t stream, uint64_t flush_bytes);

} // namespace arbiter::runtime
