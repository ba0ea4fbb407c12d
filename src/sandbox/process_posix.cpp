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

/// The channel's file: everything up to the cap, then one note (output_capture with no tail).
std::optional<detail::output_capture> channel_capture(const process_spec& spec) {
  if (spec.channel_path.empty()) return std::nullopt;
  return std::make_optional<detail::output_capture>(spec.channel_path, spec.channel_max_bytes, 0);
}

detail::launch_result launch(const process_spec& spec, output_pipe& output, output_pipe* channel) {
  detail::launch_result launched;
  if (!output.error.empty() || (channel && !channel->error.empty())) {
    launched.error = output.error.empty() ? channel->error : output.error;
    return launched;
  }
  launched = detail::launch_child(spec, output.write_end.get(), channel ? channel->write_end.get() : -1);
  output.write_end.reset(); // the child holds the only write ends now: EOF when it is gone
  if (channel) channel->write_end.reset();
  return launched;
}

void finish_captures(detail::output_capture& log, std::optional<detail::output_capture>& channel) {
  if (channel) channel->finish();
  log.finish();
}

} // namespace

process_result posix_process_runner::run(const process_spec& spec) {
  detail::output_capture capture(spec.log_path, spec.log_head_bytes, spec.log_tail_bytes);
  std::optional<detail::output_capture> channel = channel_capture(spec);
  auto const start = std::chrono::steady_clock::now();
  process_result result;
  output_pipe pipe = make_output_pipe();
  std::optional<output_pipe> channel_pipe;
  if (channel) channel_pipe = make_output_pipe();
  detail::launch_result launched = launch(spec, pipe, channel_pipe ? &*channel_pipe : nullptr);
  result.isolation_applied = launched.isolated;
  for (auto const& note : launched.notes) result.isolation_note += (result.isolation_note.empty() ? "" : "; ") + note;
  if (!launched.error.empty()) {
    result.end = process_end::failed_to_start;
    result.error = launched.error;
    result.wall_s = seconds_since(start);
    finish_captures(capture, channel);
    return result;
  }
  std::vector<detail::child_pipe> pipes;
  pipes.push_back({std::move(pipe.read_end), &capture});
  if (channel) pipes.push_back({std::move(channel_pipe->read_end), &*channel});
  detail::supervisor watcher(launched.pid, std::move(pipes), spec.timeout_s, spec.kill_grace_s);
  auto const watched = watcher.run();
  result.wall_s = seconds_since(start);
  fill_end(result, watched, spec.timeout_s);
  finish_captures(capture, channel);
  result.output_bytes = capture.total_bytes();
  result.truncated = capture.truncated();
  if (channel) {
    result.channel_bytes = channel->total_bytes();
    result.channel_truncated = channel->truncated();
  }
  return result;
}

} // namespace arbiter::sandbox
