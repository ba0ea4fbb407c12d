#include "detail/process_access.hpp"

#include <poll.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

namespace arbiter::sandbox::detail {

std::optional<int> innermost_pid(pid_t host_pid) {
  std::ifstream status("/proc/" + std::to_string(host_pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("NSpid:", 0) != 0) continue;
    std::istringstream fields(line.substr(6));
    std::optional<int> last;
    for (int pid = 0; fields >> pid;) last = pid;
    return last;
  }
  return std::nullopt;
}

std::function<std::optional<int>(int)> pid_finder(std::function<std::vector<pid_t>()> members) {
  return [members = std::move(members)](int ns_pid) -> std::optional<int> {
    for (pid_t const pid : members())
      if (innermost_pid(pid) == ns_pid) return pid;
    return std::nullopt;
  };
}

namespace {

/// The fields of /proc/<pid>/stat after the command's closing parenthesis; empty when it is gone.
std::string stat_tail(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  const std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() ? std::string() : text.substr(close + 2);
}

bool stopped(pid_t pid) {
  const std::string tail = stat_tail(pid);
  return tail.empty() || tail[0] == 'T' || tail[0] == 't'; // gone counts: nothing of it runs
}

} // namespace

std::function<bool(bool)> signal_holder(std::function<std::vector<pid_t>()> members) {
  auto held = std::make_shared<std::vector<pid_t>>();
  return [members = std::move(members), held](bool hold) {
    if (!hold) {
      bool all = true;
      for (const pid_t pid : *held) all = (::kill(pid, SIGCONT) == 0 || errno == ESRCH) && all;
      held->clear();
      return all;
    }
    *held = members();
    if (held->empty()) return false;
    for (const pid_t pid : *held) ::kill(pid, SIGSTOP);
    for (int tick = 0; tick < 2000; ++tick) {
      if (std::all_of(held->begin(), held->end(), stopped)) return true;
      ::poll(nullptr, 0, 1);
    }
    return false;
  };
}

std::function<std::vector<pid_t>()> procs_lister(std::string procs_file) {
  return [procs_file = std::move(procs_file)] {
    std::vector<pid_t> pids;
    std::ifstream text(procs_file);
    for (pid_t pid = 0; text >> pid;) pids.push_back(pid);
    return pids;
  };
}

std::function<std::vector<pid_t>()> descendants_lister(pid_t leader) {
  return [leader] {
    std::map<pid_t, std::vector<pid_t>> children;
    std::error_code ec;
    for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
      std::istringstream fields(stat_tail(static_cast<pid_t>(std::stol(name))));
      std::string state;
      pid_t parent = 0;
      if (fields >> state >> parent) children[parent].push_back(static_cast<pid_t>(std::stol(name)));
    }
    std::vector<pid_t> found{leader};
    for (std::size_t next = 0; next < found.size(); ++next)
      for (const pid_t child : children[found[next]]) found.push_back(child);
    return found;
  };
}

} // namespace arbiter::sandbox::detail
