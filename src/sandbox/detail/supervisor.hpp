#pragma once
/// The parent half of the sandbox: waits for one child's process group while copying its output,
/// enforces the wall-clock limit (SIGTERM to the group, then SIGKILL after a grace period), and
/// kills whatever is left of the group when the leader exits. Private to the sandbox.
#include "detail/output_capture.hpp"
#include "detail/unique_fd.hpp"

#include <sys/types.h>

#include <chrono>

namespace arbiter::sandbox::detail {

struct supervision {
  bool timed_out = false; ///< the wall-clock limit passed before the leader exited
  int wait_status = 0;    ///< from waitpid
};

class supervisor {
public:
  using clock = std::chrono::steady_clock;

  /// `pid` leads its own process group; `output` is the read end of its stdout/stderr pipe.
  supervisor(pid_t pid, unique_fd output, output_capture& capture, double timeout_s, double kill_grace_s);

  /// Returns once the leader has been reaped and the group killed. Throws io_error only when the
  /// child cannot be waited for (something else in this process reaped it).
  supervision run();

private:
  bool leader_has_exited();
  void on_leader_exit(clock::time_point now);
  void escalate(clock::time_point now);
  void wait_for_event(clock::time_point now);
  void drain_output();
  void signal_group(int sig) const;
  int reap();

  pid_t m_pid;
  unique_fd m_output;
  unique_fd m_pidfd; ///< readable when the leader exits; absent on kernels before 5.3
  output_capture& m_capture;
  clock::time_point m_deadline;
  clock::duration m_grace;
  clock::time_point m_kill_at{};
  clock::time_point m_drain_until{};
  bool m_term_sent = false;
  bool m_kill_sent = false;
  bool m_leader_exited = false;
  bool m_output_closed = false;
};

} // namespace arbiter::sandbox::detail
