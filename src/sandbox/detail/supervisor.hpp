#pragma once
/// The parent half of the sandbox: waits for one child's process group while copying its output,
/// enforces the wall-clock limit (SIGTERM to the group, then SIGKILL after a grace period), and
/// kills whatever is left of the group when the leader exits. Private to the sandbox.
#include "detail/output_capture.hpp"
#include "detail/unique_fd.hpp"

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <vector>

namespace arbiter::sandbox::detail {

/// One pipe the child writes to and the capture its bytes go to.
struct child_pipe {
  unique_fd fd; ///< the read end, non-blocking
  output_capture* sink = nullptr;
};

struct supervision {
  bool timed_out = false; ///< the wall-clock limit passed before the leader exited
  int wait_status = 0;    ///< from waitpid
};

class supervisor {
 public:
  using clock = std::chrono::steady_clock;

  /// `pid` leads its own process group; `pipes` are the read ends of its stdout/stderr pipe and of
  /// its channel, if any, each drained into its own capture until EOF. `at_leader_exit`, when
  /// given, is called once the leader has exited and before its group is killed (the survivors
  /// are looked for there).
  supervisor(pid_t pid, std::vector<child_pipe> pipes, double timeout_s, double kill_grace_s,
             std::function<void()> at_leader_exit = {});

  /// Returns once the leader has been reaped and the group killed. Throws io_error only when the
  /// child cannot be waited for (something else in this process reaped it).
  supervision run();

 private:
  bool leader_has_exited();
  void on_leader_exit(clock::time_point now);
  void escalate(clock::time_point now);
  void wait_for_event(clock::time_point now);
  void drain(child_pipe& pipe);
  bool pipes_closed() const;
  void signal_group(int sig) const;
  int reap();

  pid_t m_pid;
  std::vector<child_pipe> m_pipes; ///< a pipe's fd is reset at its EOF
  unique_fd m_pidfd;               ///< readable when the leader exits; absent on kernels before 5.3
  clock::time_point m_deadline;
  clock::duration m_grace;
  clock::time_point m_kill_at{};
  clock::time_point m_drain_until{};
  bool m_term_sent = false;
  bool m_kill_sent = false;
  bool m_leader_exited = false;
  std::function<void()> m_at_leader_exit;
};

} // namespace arbiter::sandbox::detail
