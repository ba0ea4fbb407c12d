#include "arbiter/sandbox/process.hpp"

#include "detail/child_launch.hpp"
#include "detail/output_capture.hpp"
#include "detail/supervisor.hpp"
#include "detail/unique_fd.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace arbiter::sandbox {
namespace {

/// The output pipe: the read end close-on-exec and non-blocking for the parent; the write end
/// close-on-exec so that only the child's dup2'd copies survive exec.
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

void fill_end(process_result& result, const detail::supervision& watched, double timeout_s) {
  if (watched.timed_out) {
    result.end = process_end::timed_out;
    result.timeout_s = timeout_s;
  } else if (WIFSIGNALED(watched.wait_status)) {
    result.end = process_end::signaled;
    result.signal = WTERMSIG(watched.wait_status);
  } else {
    result.end = process_end::exited;
    result.exit_code = WEXITSTATUS(watched.wait_status);
  }
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

process_result posix_process_runner::run(const process_spec& spec) {
  detail::output_capture capture(spec.log_path, spec.log_head_bytes, spec.log_tail_bytes);
  auto const start = std::chrono::steady_clock::now();
  process_result result;
  output_pipe pipe = make_output_pipe();
  detail::launch_result launched;
  if (pipe.error.empty()) {
    launched = detail::launch_child(spec, pipe.write_end.get());
    pipe.write_end.reset(); // the child holds the only write ends now: EOF when it is gone
  } else {
    launched.error = pipe.error;
  }
  result.isolation_applied = launched.isolated;
  for (auto const& note : launched.notes) result.isolation_note += (result.isolation_note.empty() ? "" : "; ") + note;
  if (!launched.error.empty()) {
    result.end = process_end::failed_to_start;
    result.error = launched.error;
    result.wall_s = seconds_since(start);
    capture.finish();
    return result;
  }
  detail::supervisor watcher(launched.pid, std::move(pipe.read_end), capture, spec.timeout_s, spec.kill_grace_s);
  auto const watched = watcher.run();
  result.wall_s = seconds_since(start);
  fill_end(result, watched, spec.timeout_s);
  capture.finish();
  result.output_bytes = capture.total_bytes();
  result.truncated = capture.truncated();
  return result;
}

} // namespace arbiter::sandbox
