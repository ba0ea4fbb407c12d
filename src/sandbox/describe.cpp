#include "arbiter/sandbox/process.hpp"

#include <fmt/format.h>

#include <csignal>
#include <string_view>

namespace arbiter::sandbox {
namespace {

/// Our own table rather than sigabbrev_np: that needs glibc 2.32, and the binary must run on
/// older GPU hosts.
std::string_view signal_name(int sig) {
  switch (sig) {
  case SIGHUP:
    return "SIGHUP";
  case SIGINT:
    return "SIGINT";
  case SIGQUIT:
    return "SIGQUIT";
  case SIGILL:
    return "SIGILL";
  case SIGTRAP:
    return "SIGTRAP";
  case SIGABRT:
    return "SIGABRT";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGKILL:
    return "SIGKILL";
  case SIGUSR1:
    return "SIGUSR1";
  case SIGSEGV:
    return "SIGSEGV";
  case SIGUSR2:
    return "SIGUSR2";
  case SIGPIPE:
    return "SIGPIPE";
  case SIGALRM:
    return "SIGALRM";
  case SIGTERM:
    return "SIGTERM";
  case SIGCHLD:
    return "SIGCHLD";
  case SIGXCPU:
    return "SIGXCPU";
  case SIGXFSZ:
    return "SIGXFSZ";
  case SIGSYS:
    return "SIGSYS";
  default:
    return {};
  }
}

} // namespace

std::string describe(const process_result& result) {
  switch (result.end) {
  case process_end::exited:
    return fmt::format("exited with status {}", result.exit_code);
  case process_end::signaled: {
    auto const name = signal_name(result.signal);
    if (name.empty()) return fmt::format("killed by signal {}", result.signal);
    return fmt::format("killed by {} (signal {})", name, result.signal);
  }
  case process_end::timed_out:
    return fmt::format("timed out after {:.1f} s (wall clock)", result.timeout_s > 0 ? result.timeout_s : result.wall_s);
  case process_end::failed_to_start:
    return "failed to start: " + result.error;
  }
  return "unknown process end";
}

} // namespace arbiter::sandbox
