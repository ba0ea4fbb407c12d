#pragma once
/// The CUPTI probe's window marks (docs/probe.md), reached only when the process was started with
/// the probe (CUDA_INJECTION64_PATH naming libarbiter_probe.so): the already-loaded library is
/// looked up by its soname, never loaded here, so a process without the probe pays nothing. The
/// link holds the run's marker token, claimed from the probe as the runtime is loaded.
#include "arbiter/runtime/timing.hpp"

#include <cstdint>

namespace arbiter::runtime {

struct probe_link {
  int (*begin)(uint64_t token, const char* label, int64_t group, int64_t index, uint64_t stream) = nullptr;
  int (*end)(uint64_t token) = nullptr;
  uint64_t token = 0;

  bool present() const noexcept { return begin && end; }
  /// The process-wide link, resolved on first use.
  static const probe_link& get();
};

/// Marks of one timing run: every window carries the run's group (shape index) and stream.
class probe_marks final : public window_marks {
 public:
  probe_marks(int64_t group, uint64_t stream) : m_link(probe_link::get()), m_group(group), m_stream(stream) {}
  void begin(const char* label, int64_t index) override {
    if (m_link.present()) m_link.begin(m_link.token, label, m_group, index, m_stream);
  }
  void end() override {
    if (m_link.present()) m_link.end(m_link.token);
  }

 private:
  const probe_link& m_link;
  int64_t m_group;
  uint64_t m_stream;
};

} // namespace arbiter::runtime
