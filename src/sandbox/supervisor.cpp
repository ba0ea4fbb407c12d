#include "detail/supervisor.hpp"

#include "arbiter/common/error.hpp"
#include "arbiter/common/log.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace arbiter::sandbox::detail {
namespace {

/// How long output is still read after the leader exits and its group was killed: a process that
/// left the group (setsid) may hold the pipe open forever.
constexpr std::chrono::milliseconds drain_limit{1000};
/// The output pipe and the channel.
constexpr std::size_t k_max_pipes = 2;
/// Poll interval when no pidfd tells us the leader exited.
constexpr std::chrono::milliseconds fallback_tick{10};

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(std::max(s, 0.0)));
}

int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  return -1;
#endif
}

} // namespace

supervisor::supervisor(pid_t pid, std::vector<child_pipe> pipes, double timeout_s, double kill_grace_s,
                       std::function<void()> at_leader_exit)
    : m_pid(pid), m_pipes(std::move(pipes)), m_pidfd(open_pidfd(pid)), m_deadline(clock::now() + seconds(timeout_s)),
      m_grace(seconds(kill_grace_s)), m_at_leader_exit(std::move(at_leader_exit)) {
  ARB_ASSERT(m_pipes.size() <= k_max_pipes);
}

supervision supervisor::run() {
  while (true) {
    auto const now = clock::now();
    if (!m_leader_exited && leader_has_exited()) on_leader_exit(now);
    if (m_leader_exited && (pipes_closed() || now >= m_drain_until)) break;
    if (!m_leader_exited) escalate(now);
    wait_for_event(now);
    for (auto& pipe : m_pipes)
      if (pipe.fd.valid()) drain(pipe);
  }
  return {m_term_sent, reap()};
}

bool supervisor::pipes_closed() const {
  return std::none_of(m_pipes.begin(), m_pipes.end(), [](const child_pipe& pipe) { return pipe.fd.valid(); });
}

/// Looks without reaping: the zombie keeps the pid, so the group id cannot be reused while we
/// still signal it.
bool supervisor::leader_has_exited() {
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(m_pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    if (errno == EINTR) return false;
    int const saved = errno;
    signal_group(SIGKILL);
    errno = saved;
    ARB_THROW(io_error, "waitid(" + std::to_string(m_pid) + "): " + std::strerror(errno));
  }
  return info.si_pid != 0;
}

void supervisor::on_leader_exit(clock::time_point now) {
  m_leader_exited = true;
  if (m_at_leader_exit) m_at_leader_exit();
  signal_group(SIGKILL); // background children must not outlive the evaluation
  m_drain_until = now + drain_limit;
}

void supervisor::escalate(clock::time_point now) {
  if (!m_term_sent && now >= m_deadline) {
    signal_group(SIGTERM);
    m_term_sent = true;
    m_kill_at = now + m_grace;
  }
  if (m_term_sent && !m_kill_sent && now >= m_kill_at) {
    signal_group(SIGKILL);
    m_kill_sent = true;
  }
}

void supervisor::wait_for_event(clock::time_point now) {
  clock::time_point next = m_leader_exited ? m_drain_until : (!m_term_sent ? m_deadline : m_kill_at);
  if (!m_leader_exited && m_kill_sent) next = now + std::chrono::seconds(1); // only the exit is left
  if (!m_pidfd.valid() && !m_leader_exited) next = std::min(next, now + fallback_tick);
  auto const wait = std::chrono::ceil<std::chrono::milliseconds>(std::max(next - now, clock::duration::zero()));
  std::array<pollfd, k_max_pipes + 1> fds{};
  nfds_t count = 0;
  for (auto const& pipe : m_pipes)
    if (pipe.fd.valid()) fds[count++] = {pipe.fd.get(), POLLIN, 0};
  if (m_pidfd.valid() && !m_leader_exited) fds[count++] = {m_pidfd.get(), POLLIN, 0};
  int const timeout_ms = static_cast<int>(std::min<std::chrono::milliseconds::rep>(wait.count(), 60'000));
  if (::poll(fds.data(), count, timeout_ms) < 0 && errno != EINTR) {
    ARB_THROW(io_error, std::string("poll: ") + std::strerror(errno));
  }
}

/// Reads what is there, at most a few MiB at a time so that a flood cannot starve the clock.
void supervisor::drain(child_pipe& pipe) {
  std::array<char, 64 * 1024> buffer;
  for (int read_idx = 0; read_idx < 64; ++read_idx) {
    ssize_t const got = ::read(pipe.fd.get(), buffer.data(), buffer.size());
    if (got > 0) {
      pipe.sink->append(buffer.data(), static_cast<std::size_t>(got));
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (got < 0) ARB_WARN("sandbox", "reading child output: {}", std::strerror(errno));
    pipe.fd.reset(); // EOF, or an error that will not go away
    return;
  }
}

void supervisor::signal_group(int sig) const {
  if (::kill(-m_pid, sig) != 0 && errno != ESRCH) {
    ARB_WARN("sandbox", "kill(-{}, {}): {}", m_pid, sig, std::strerror(errno));
  }
}

int supervisor::reap() {
  int status = 0;
  while (::waitpid(m_pid, &status, 0) < 0) {
    if (errno != EINTR) ARB_THROW(io_error, "waitpid(" + std::to_string(m_pid) + "): " + std::strerror(errno));
  }
  return status;
}

} // namespace arbiter::sandbox::detail
