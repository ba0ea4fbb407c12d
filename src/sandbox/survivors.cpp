#include "detail/survivors.hpp"

#include "detail/proc_files.hpp"

#include <signal.h>

#include <cstdint>
#include <string>

namespace arbiter::sandbox::detail {
namespace {

constexpr std::size_t k_command_chars = 160;

/// PID 1 of its own namespace: the last of its NSpid chain is 1.
bool namespace_init(const std::string& status) { return innermost_pid(status) == 1; }

/// SIGKILL among the signals pending for the process (ShdPnd) or its thread (SigPnd), in hex.
bool kill_pending(const std::string& status) {
  std::uint64_t const bit = std::uint64_t{1} << (SIGKILL - 1);
  for (const char* key : {"ShdPnd", "SigPnd"})
    if (std::stoull("0" + status_value(status, key), nullptr, 16) & bit) return true;
  return false;
}

std::string command_line(pid_t pid) {
  std::string text = read_proc(pid, "cmdline");
  while (!text.empty() && text.back() == '\0') text.pop_back();
  for (char& c : text)
    if (c == '\0' || c == '\n') c = ' ';
  if (text.empty()) return "pid " + std::to_string(pid) + " (command line unreadable)";
  if (text.size() > k_command_chars) text = text.substr(0, k_command_chars - 3) + "...";
  return text;
}

} // namespace

std::vector<std::string> find_survivors(const std::vector<pid_t>& members, pid_t leader) {
  std::vector<std::string> found;
  for (pid_t const pid : members) {
    if (pid == leader) continue;
    const auto stat = read_proc_stat(pid);
    if (!stat || stat->group == leader || stat->state == 'Z' || stat->state == 'X') continue;
    std::string const status = read_proc(pid, "status");
    if (namespace_init(status) || kill_pending(status)) continue;
    found.push_back(command_line(pid));
  }
  return found;
}

} // namespace arbiter::sandbox::detail
