#pragma once
/// The stream hold: a one-thread kernel that keeps the harness stream busy until the host releases
/// it, so that everything a timed call queues behind it runs back to back on the device and the
/// host's launch overhead falls outside the timed span (docs/measurement.md). The kernel ends by
/// itself after a timeout, so a call that waits for the device (a synchronising call) cannot
/// deadlock: it is seen afterwards as a hold that was not released by the host.
#include "cuda_driver.hpp"

#include <cstdint>

namespace arbiter::runtime {

class stream_hold {
 public:
  /// Loads the kernels (PTX, JIT-compiled by the driver) into the current context and allocates
  /// the host-mapped flag. Throws runtime_failure(ARB_E_CUDA) when either fails.
  explicit stream_hold(const cuda_driver& driver);
  ~stream_hold();
  stream_hold(const stream_hold&) = delete;
  stream_hold& operator=(const stream_hold&) = delete;

  /// Queues the hold on stream; it spins until release() or until timeout_ns have passed.
  void engage(cu_stream stream, uint64_t timeout_ns);
  /// Lets the queued hold end. Safe to call when it has already timed out.
  void release() noexcept;
  /// After the stream has drained: whether the last hold ended by release() (not by its timeout).
  bool released_by_host() const noexcept;
  /// Queues an empty kernel (for measuring the clock's own floor).
  void launch_empty(cu_stream stream);

 private:
  void free_resources() noexcept;

  const cuda_driver& m_driver;
  cu_module m_module = nullptr;
  cu_function m_hold = nullptr;
  cu_function m_empty = nullptr;
  volatile uint32_t* m_words = nullptr; ///< [0] release flag, [1] how the hold ended (1 released, 2 timed out)
  cu_deviceptr m_device_words = 0;
};

} // namespace arbiter::runtime
