#include "arbiter/sandbox/process.hpp"

#include "detail/cgroup.hpp"
#include "detail/child_launch.hpp"
#include "detail/output_capture.hpp"
#include "detail/process_access.hpp"
#include "detail/supervisor.hpp"
#include "detail/survivors.hpp"
#include "detail/unique_fd.hpp"
#include "detail/work_cap.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

namespace arbiter::sandbox {
namespace {

/// A pipe from the child (its output or its channel): the read end close-on-exec and non-blocking
/// for the parent; the write end close-on-exec so that only the child's dup2'd copies survive exec.
struct output_pipe {
  detail::unique_fd read_end, write_end;
  std::string error;
};

output_pipe make_output_pipe() {
  output_pipe out;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    out.error = std::string("pipe2: ") + std::strerror(errno);
    return out;
  }
  out.read_end = detail::unique_fd(fds[0]);
  out.write_end = detail::unique_fd(fds[1]);
  int const flags = ::fcntl(out.read_end.get(), F_GETFL);
  if (flags < 0 || ::fcntl(out.read_end.get(), F_SETFL, flags | O_NONBLOCK) != 0) {
    out.error = std::string("fcntl(O_NONBLOCK): ") + std::strerror(errno);
  }
  return out;
}

/// bwrap ends with 128 + n when the program was killed by signal n: read back as the signal.
constexpr int k_bwrap_signal_base = 128;

void fill_end(process_result& result, const detail::supervision& watched, double timeout_s) {
  if (watched.timed_out) {
    result.end = process_end::timed_out;
    result.timeout_s = timeout_s;
  } else if (WIFSIGNALED(watched.wait_status)) {
    result.end = process_end::signaled;
    result.signal = WTERMSIG(watched.wait_status);
  } else if (int const code = WEXITSTATUS(watched.wait_status);
             result.isolation_engine == "bubblewrap" && code > k_bwrap_signal_base && code < k_bwrap_signal_base + 65) {
    result.end = process_end::signaled;
    result.signal = code - k_bwrap_signal_base;
  } else {
    result.end = process_end::exited;
    result.exit_code = code;
  }
}

void add_line(std::string& text, const std::string& line) {
  if (!line.empty()) text += (text.empty() ? "" : "; ") + line;
}

/// The evaluation's cgroup, when isolation is asked for and arbiter is root.
detail::evaluation_cgroup make_cgroup(const process_spec& spec, std::vector<std::string>& missing) {
  if (!spec.sandbox.enabled || !spec.sandbox.cgroup || ::geteuid() != 0) return {};
  detail::cgroup_limits limits{spec.sandbox.cpus, spec.sandbox.cpu_max_cores, spec.sandbox.memory_max_bytes,
                               spec.sandbox.pids_max};
  return detail::evaluation_cgroup::create(limits, missing);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The channel's file: everything up to the cap, then one note (output_capture with no tail).
std::optional<detail::output_capture> channel_capture(const process_spec& spec) {
  if (spec.channel_path.empty()) return std::nullopt;
  return std::make_optional<detail::output_capture>(spec.channel_path, spec.channel_max_bytes, 0);
}

void finish_captures(detail::output_capture& log, std::optional<detail::output_capture>& channel) {
  if (channel) channel->finish();
  log.finish();
}

/// One launched child and everything its supervision needs: run() supervises it at once, a
/// started_process once its gate opens.
struct launched_child {
  detail::output_capture capture;
  std::optional<detail::output_capture> channel;
  std::vector<detail::child_pipe> pipes;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  detail::evaluation_cgroup cgroup; ///< killed whole and removed once the leader is reaped
  pid_t pid = -1;
  process_result result; ///< its start: failed_to_start with the reason, or the isolation applied

  explicit launched_child(const process_spec& spec)
      : capture(spec.log_path, spec.log_head_bytes, spec.log_tail_bytes), channel(channel_capture(spec)) {}
};

/// Forks and execs spec's child; `gate`, when given, is the read end its gate_fd gets.
std::unique_ptr<launched_child> launch(const process_spec& spec, int gate = -1) {
  auto child = std::make_unique<launched_child>(spec);
  output_pipe output = make_output_pipe();
  std::optional<output_pipe> channel;
  if (child->channel) channel = make_output_pipe();
  detail::launch_result launched;
  std::vector<std::string> cgroup_missing;
  child->cgroup = make_cgroup(spec, cgroup_missing);
  if (!output.error.empty() || (channel && !channel->error.empty())) {
    launched.error = output.error.empty() ? channel->error : output.error;
  } else {
    launched = detail::launch_child(spec, output.write_end.get(), channel ? channel->write_end.get() : -1, gate,
                                    child->cgroup.procs_fds());
  }
  child->result.isolation_applied = launched.isolated;
  for (auto const& note : launched.notes) add_line(child->result.isolation_note, note);
  child->result.isolation_engine = launched.engine;
  child->result.isolation_layers = launched.layers;
  if (child->cgroup.valid() && !launched.engine.empty()) {
    std::string layer = "cgroup";
    for (auto const& controller : child->cgroup.controllers()) layer += (layer == "cgroup" ? " (" : ", ") + controller;
    child->result.isolation_layers.push_back(layer + (child->cgroup.controllers().empty() ? "" : ")"));
  }
  for (auto const& line : launched.missing) add_line(child->result.isolation_missing, line);
  if (!launched.engine.empty())
    for (auto const& line : cgroup_missing) add_line(child->result.isolation_missing, line);
  if (!launched.error.empty()) {
    child->result.end = process_end::failed_to_start;
    child->result.error = launched.error;
    return child;
  }
  child->pid = launched.pid;
  // The child holds the only write ends now (their copies here close with `output`, `channel`).
  child->pipes.push_back({std::move(output.read_end), &child->capture});
  if (channel) child->pipes.push_back({std::move(channel->read_end), &*child->channel});
  return child;
}

/// Supervises a launched child to its end (or reports its failed start) and closes its files.
process_result supervise(launched_child& child, const process_spec& spec) {
  process_result result = std::move(child.result);
  if (child.pid > 0) {
    // Survivors are looked for while they still live: the leader's group, killed next, holds the
    // sandbox's init, whose end takes the PID namespace down with everything in it.
    auto const look_for_survivors = [&] { result.survivors = detail::find_survivors(child.cgroup.members(), child.pid); };
    detail::supervisor watcher(child.pid, std::move(child.pipes), spec.timeout_s, spec.kill_grace_s, look_for_survivors);
    fill_end(result, watcher.run(), spec.timeout_s);
    child.pid = -1;
  }
  add_line(result.limit_exceeded, child.cgroup.finish()); // a process that left every group dies here
  if (spec.sandbox.enabled)
    add_line(result.limit_exceeded, detail::enforce_work_cap(spec.sandbox.size_capped_paths, spec.sandbox.max_work_bytes));
  result.wall_s = seconds_since(child.start);
  finish_captures(child.capture, child.channel);
  result.output_bytes = child.capture.total_bytes();
  result.truncated = child.capture.truncated();
  if (child.channel) {
    result.channel_bytes = child.channel->total_bytes();
    result.channel_truncated = child.channel->truncated();
  }
  return result;
}

/// One byte into the gate. A child gone already makes it EPIPE, never a SIGPIPE that would end
/// arbiter: the signal is blocked in this thread for the write and a pending one taken back.
void open_gate(int gate) {
  sigset_t pipe_only, old;
  ::sigemptyset(&pipe_only);
  ::sigaddset(&pipe_only, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
  const char open = '1';
  while (::write(gate, &open, 1) < 0 && errno == EINTR) {}
  const timespec now{0, 0};
  while (::sigtimedwait(&pipe_only, nullptr, &now) == SIGPIPE) {}
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

class posix_started_process final : public started_process {
 public:
  explicit posix_started_process(const process_spec& spec) : m_spec(spec) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      m_child = std::make_unique<launched_child>(spec);
      m_child->result.error = std::string("pipe2: ") + std::strerror(errno);
      return;
    }
    detail::unique_fd gate_read(fds[0]);
    m_gate = detail::unique_fd(fds[1]);
    m_child = launch(spec, gate_read.get());
  }

  ~posix_started_process() override {
    if (!m_child || m_child->pid <= 0) return;
    ::kill(-m_child->pid, SIGKILL);
    int status = 0;
    while (::waitpid(m_child->pid, &status, 0) < 0 && errno == EINTR) {}
    m_child->cgroup.finish();
    try {
      finish_captures(m_child->capture, m_child->channel);
    } catch (const std::exception&) { // a log that cannot be written: nothing to report it to
    }
  }

  void open() override {
    if (!m_gate.valid()) return; // opened already, or no gate could be made (finish() reports it)
    m_gated_s = seconds_since(m_child->start);
    open_gate(m_gate.get()); // a child gone already: finish() reports its end
    m_gate.reset();
  }

  process_result finish() override {
    open();
    process_result result = supervise(*m_child, m_spec);
    result.gated_s = m_gated_s;
    return result;
  }

  process_access access() const override {
    process_access access;
    if (!m_child || m_child->pid <= 0) return access;
    const pid_t pid = m_child->pid;
    // Its processes: the cgroup's members where it has one, else the leader and its descendants.
    const auto members = m_child->cgroup.valid() && !m_child->cgroup.procs_file().empty()
        ? detail::procs_lister(m_child->cgroup.procs_file())
        : detail::descendants_lister(pid);
    access.host_pid = detail::pid_finder(members);
    access.threads = detail::thread_lister(members);
    access.hold = m_child->cgroup.valid() ? m_child->cgroup.freezer() : std::function<bool(bool)>{};
    if (!access.hold) access.hold = detail::signal_holder(members);
    if (m_child->cgroup.valid()) {
      access.cpu_ms = m_child->cgroup.cpu_clock_ms();
      return access;
    }
    if (m_spec.sandbox.enabled) return access; // the leader is the engine, not the program: its clock says nothing
    // Unisolated, the child is the program itself: its process CPU clock (every thread of it).
    clockid_t clock{};
    if (::clock_getcpuclockid(pid, &clock) != 0) return access;
    access.cpu_ms = [clock]() -> std::optional<double> {
      timespec used{};
      if (::clock_gettime(clock, &used) != 0) return std::nullopt; // reaped
      return static_cast<double>(used.tv_sec) * 1e3 + static_cast<double>(used.tv_nsec) / 1e6;
    };
    return access;
  }

 private:
  process_spec m_spec;
  std::unique_ptr<launched_child> m_child;
  detail::unique_fd m_gate;
  double m_gated_s = 0;
};

/// process_runner's default: nothing runs until finish().
class deferred_process final : public started_process {
 public:
  deferred_process(process_runner& runner, const process_spec& spec) : m_runner(runner), m_spec(spec) {}
  process_result finish() override { return m_runner.run(m_spec); }

 private:
  process_runner& m_runner;
  process_spec m_spec;
};

} // namespace

std::unique_ptr<started_process> process_runner::start(const process_spec& spec) {
  return std::make_unique<deferred_process>(*this, spec);
}

process_result posix_process_runner::run(const process_spec& spec) {
  auto child = launch(spec);
  return supervise(*child, spec);
}

std::unique_ptr<started_process> posix_process_runner::start(const process_spec& spec) {
  return std::make_unique<posix_started_process>(spec);
}

} // namespace arbiter::sandbox
