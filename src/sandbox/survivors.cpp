#include "detail/survivors.hpp"

#include <signal.h>

#include <cstdint>
#include <fstream>
#include <sstream>

namespace arbiter::sandbox::detail {
namespace {

constexpr std::size_t k_command_chars = 160;

std::string read_proc(pid_t pid, const char* file) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/" + file, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// /proc/<pid>/stat: the state and the process group, after the command in parentheses (which
/// may hold spaces and parentheses itself). False when the process is gone.
bool read_stat(pid_t pid, char& state, pid_t& group) {
  std::string const stat = read_proc(pid, "stat");
  auto const close = stat.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream fields(stat.substr(close + 1));
  pid_t parent = 0;
  return static_cast<bool>(fields >> state >> parent >> group);
}

/// The value of `key` in /proc/<pid>/status ("NSpid:\t812\t1").
std::string status_value(const std::string& status, const std::string& key) {
  std::istringstream lines(status);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(key + ":", 0) == 0) return line.substr(key.size() + 1);
  return {};
}

/// PID 1 of its own namespace: the last of its NSpid chain is 1.
bool namespace_init(const std::string& status) {
  std::istringstream ids(status_value(status, "NSpid"));
  std::string last;
  for (std::string id; ids >> id;) last = id;
  return last == "1";
}

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
    char state = 0;
    pid_t group = 0;
    if (pid == leader || !read_stat(pid, state, group) || group == leader || state == 'Z' || state == 'X') continue;
    std::string const status = read_proc(pid, "status");
    if (namespace_init(status) || kill_pending(status)) continue;
    found.push_back(command_line(pid));
  }
  return found;
}

} // namespace arbiter::sandbox::detail
