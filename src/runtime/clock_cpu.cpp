#include "arbiter/runtime/sample_clock.hpp"
#include "arbiter/common/timing_kind.hpp"

#include <chrono>
#include <cstring>
#include <vector>

namespace arbiter::runtime {

namespace {

constexpr uint64_t k_default_cpu_flush_bytes = 64ull << 20; // larger than any host last-level cache

class cpu_clock final : public sample_clock {
 public:
  explicit cpu_clock(uint64_t flush_bytes) : m_flush(flush_bytes ? flush_bytes : k_default_cpu_flush_bytes) {}

  const char* device_name() const noexcept override { return "cpu"; }
  const char* clock_name() const noexcept override { return timing_kind::clock_steady.data(); }
  clock_info info() const override {
    clock_info i;
    i.method = timing_kind::method_steady;
    i.monitor = "none on cpu";
    return i;
  }

  void prepare(int64_t sample_idx) override {
    std::memset(m_flush.data(), static_cast<int>(sample_idx & 0xff), m_flush.size());
    // Read back through a volatile so that the stores cannot be proven dead and dropped.
    m_sink = m_flush[static_cast<size_t>(sample_idx) % m_flush.size()];
  }

  clock_sample time_call(const std::function<void()>& call) override {
    const auto start = std::chrono::steady_clock::now();
    call();
    const auto end = std::chrono::steady_clock::now();
    return {std::chrono::duration<double, std::milli>(end - start).count()};
  }

  bool measures_host_latency() const noexcept override { return false; }
  double time_host(const std::function<void()>& call) override { return time_call(call).ms; }

 private:
  std::vector<unsigned char> m_flush;
  volatile unsigned char m_sink = 0;
};

} // namespace

std::unique_ptr<sample_clock> make_cpu_clock(uint64_t flush_bytes) { return std::make_unique<cpu_clock>(flush_bytes); }

} // namespace arbiter::runtime
