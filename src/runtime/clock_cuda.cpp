#include "arbiter/runtime/arbiter_runtime.h"
#include "arbiter/common/timing_kind.hpp"
#include "arbiter/runtime/sample_clock.hpp"
#include "arbiter/runtime/timing_stats.hpp"
#include "clock_monitor.hpp"
#include "cuda_driver.hpp"
#include "failure.hpp"
#include "stream_hold.hpp"

#include <chrono>
#include <vector>

namespace arbiter::runtime {

namespace {

constexpr uint64_t k_fallback_l2_bytes = 64ull << 20; // if the driver reports no L2 size
// Long enough for any host to queue one call; a call that waits for the device costs it once.
constexpr uint64_t k_hold_timeout_ns = 200'000'000;
constexpr int k_floor_repeats = 21;

class cuda_clock final : public sample_clock {
 public:
  cuda_clock(uint64_t stream, uint64_t flush_bytes)
      : m_driver(cuda_driver::get()), m_stream(reinterpret_cast<cu_stream>(stream)) {
    const cu_device device = m_driver.current_device();
    if (flush_bytes == 0) flush_bytes = 2 * l2_bytes(device);
    m_flush_words = (flush_bytes + 3) / 4;
    m_driver.check(m_driver.mem_alloc(&m_flush, m_flush_words * 4), "cuMemAlloc (L2 flush buffer)");
    try {
      m_driver.check(m_driver.event_create(&m_start, k_cu_event_default), "cuEventCreate");
      m_driver.check(m_driver.event_create(&m_end, k_cu_event_default), "cuEventCreate");
      start_hold();
      start_monitor(device);
    } catch (...) {
      release();
      throw;
    }
  }
  ~cuda_clock() override { release(); }
  cuda_clock(const cuda_clock&) = delete;
  cuda_clock& operator=(const cuda_clock&) = delete;

  const char* device_name() const noexcept override { return "cuda"; }
  const char* clock_name() const noexcept override { return timing_kind::clock_cuda_event.data(); }
  clock_info info() const override {
    clock_info i = m_info;
    i.method = m_hold ? timing_kind::method_held_events : timing_kind::method_events;
    return i;
  }

  void prepare(int64_t sample_idx) override {
    // A value that changes per sample, so no cache or compression can treat the flush as a no-op.
    const auto value = static_cast<unsigned>(0x9E3779B9u * static_cast<uint64_t>(sample_idx + 1));
    m_driver.check(m_driver.memset_d32_async(m_flush, value, m_flush_words, m_stream), "cuMemsetD32Async (L2 flush)");
    // Lines a candidate pinned with an access-policy window would survive the flush (T6).
    if (m_driver.ctx_reset_persisting_l2) m_driver.check(m_driver.ctx_reset_persisting_l2(), "cuCtxResetPersistingL2Cache");
    m_driver.check(m_driver.ctx_synchronize(), "cuCtxSynchronize (before sample)");
  }

  clock_sample time_call(const std::function<void()>& call) override {
    clock_sample s;
    s.ms = timed_span(call, s.held);
    if (s.held && !m_hold->released_by_host()) {
      // The call waited for the device while the hold kept it busy: it synchronises. The sample
      // still measured the work (the hold ended by its timeout first); later ones go unheld.
      s.held = false;
      drop_hold("a call waited for the device (it synchronises): timed without the stream hold");
    }
    if (m_monitor) {
      const clock_reading r = m_monitor->read();
      s.sm_mhz = r.sm_mhz;
      s.throttled = r.throttled;
      s.power_capped = r.power_capped;
    }
    return s;
  }

  bool measures_host_latency() const noexcept override { return true; }
  double time_host(const std::function<void()>& call) override {
    const auto start = std::chrono::steady_clock::now();
    call();
    m_driver.check(m_driver.ctx_synchronize(), "cuCtxSynchronize (after host-latency call)");
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

 private:
  /// Events around call on the harness stream (behind the hold when there is one), then a
  /// full-device synchronise: work the call left on other streams delays the sample's end (T1).
  /// held says whether the span was queued behind the hold.
  double timed_span(const std::function<void()>& call, bool& held) {
    held = m_hold && engage();
    struct releaser {
      stream_hold* hold;
      ~releaser() {
        if (hold) hold->release();
      }
    } guard{held ? m_hold.get() : nullptr};
    m_driver.check(m_driver.event_record(m_start, m_stream), "cuEventRecord (start)");
    call();
    m_driver.check(m_driver.event_record(m_end, m_stream), "cuEventRecord (end)");
    if (held) m_hold->release();
    m_driver.check(m_driver.ctx_synchronize(), "cuCtxSynchronize (after sample)");
    float elapsed_ms = 0;
    m_driver.check(m_driver.event_elapsed_time(&elapsed_ms, m_start, m_end), "cuEventElapsedTime");
    return elapsed_ms;
  }

  /// Queues the hold; a launch failure gives the hold up (the run goes on with plain events).
  bool engage() {
    try {
      m_hold->engage(m_stream, k_hold_timeout_ns);
      return true;
    } catch (const runtime_failure& failure) {
      drop_hold(std::string("the stream hold could not be launched: ") + failure.what());
      return false;
    }
  }

  void drop_hold(std::string why) {
    m_hold.reset();
    m_info.fallback = std::move(why);
  }

  void start_hold() {
    try {
      m_hold = std::make_unique<stream_hold>(m_driver);
    } catch (const runtime_failure& failure) {
      m_info.fallback = std::string("stream hold unavailable: ") + failure.what();
      return;
    }
    m_info.floor_ms = median_span([] {});
    if (m_hold) m_info.empty_kernel_ms = median_span([this] { m_hold->launch_empty(m_stream); });
  }

  /// The held clock around `between`, a few times; a hold that the host's release never reaches
  /// (it ends by its timeout with nothing to wait for) is given up at once.
  double median_span(const std::function<void()>& between) {
    std::vector<double> spans;
    for (int rep = 0; rep < k_floor_repeats && m_hold; ++rep) {
      m_driver.check(m_driver.ctx_synchronize(), "cuCtxSynchronize (floor)");
      bool held = false;
      const double span = timed_span(between, held);
      if (held && !m_hold->released_by_host()) {
        drop_hold("the stream hold did not see the host's release: timed without it");
        return NAN;
      }
      spans.push_back(span);
    }
    return spans.empty() ? NAN : summarize_samples(spans).median_ms;
  }

  void start_monitor(cu_device device) {
    char bus_id[64] = {};
    if (m_driver.device_get_pci_bus_id(bus_id, sizeof bus_id, device) != 0) {
      m_info.monitor = "no PCI bus id for the device";
      return;
    }
    std::string why;
    m_monitor = make_clock_monitor(bus_id, &why);
    m_info.monitor = m_monitor ? "nvml" : why;
    if (m_monitor) m_info.max_sm_mhz = m_monitor->max_sm_mhz();
  }

  uint64_t l2_bytes(cu_device device) const {
    int bytes = 0;
    m_driver.check(m_driver.device_get_attribute(&bytes, k_cu_attr_l2_cache_size, device), "cuDeviceGetAttribute (L2)");
    return bytes > 0 ? static_cast<uint64_t>(bytes) : k_fallback_l2_bytes;
  }

  void release() noexcept {
    m_hold.reset();
    if (m_start) m_driver.event_destroy(m_start);
    if (m_end) m_driver.event_destroy(m_end);
    if (m_flush) m_driver.mem_free(m_flush);
    m_start = m_end = nullptr;
    m_flush = 0;
  }

  const cuda_driver& m_driver;
  cu_stream m_stream;
  cu_deviceptr m_flush = 0;
  uint64_t m_flush_words = 0;
  cu_event m_start = nullptr;
  cu_event m_end = nullptr;
  std::unique_ptr<stream_hold> m_hold;
  std::unique_ptr<clock_monitor> m_monitor;
  clock_info m_info;
};

} // namespace

std::unique_ptr<sample_clock> make_cuda_clock(uint64_t stream, uint64_t flush_bytes) {
  return std::make_unique<cuda_clock>(stream, flush_bytes);
}

} // namespace arbiter::runtime
