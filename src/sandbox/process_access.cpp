#include "detail/process_access.hpp"

#include "detail/proc_files.hpp"

#include <poll.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <map>
#include <memory>

namespace arbiter::sandbox::detail {

std::function<std::optional<int>(int)> pid_finder(std::function<std::vector<pid_t>()> members) {
  return [members = std::move(members)](int ns_pid) -> std::optional<int> {
    for (pid_t const pid : members())
      if (innermost_pid(read_proc(pid, "status")) == ns_pid) return pid;
    return std::nullopt;
  };
}

namespace {

bool stopped(pid_t pid) {
  const auto stat = read_proc_stat(pid);
  return !stat || stat->state == 'T' || stat->state == 't'; // gone counts: nothing of it runs
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
  return [procs_file = std::move(procs_file)] { return read_pids(procs_file); };
}

std::function<std::vector<thread_sample>()> thread_lister(std::function<std::vector<pid_t>()> members) {
  return [members = std::move(members)] {
    std::vector<thread_sample> threads;
    for (const pid_t pid : members())
      for (const pid_t tid : read_tids(pid)) {
        const auto run_ns = read_thread_run_ns(pid, tid);
        if (!run_ns) continue; // ended between the two reads
        std::string name = read_proc(pid, ("task/" + std::to_string(tid) + "/comm").c_str());
        if (!name.empty() && name.back() == '\n') name.pop_back();
        threads.push_back({pid, tid, std::move(name), *run_ns});
      }
    return threads;
  };
}

std::function<std::vector<pid_t>()> descendants_lister(pid_t leader) {
  return [leader] {
    std::map<pid_t, std::vector<pid_t>> children;
    for (const pid_t pid : numbered_entries("/proc"))
      if (const auto stat = read_proc_stat(pid)) children[stat->parent].push_back(pid);
    std::vector<pid_t> found{leader};
    for (std::size_t next = 0; next < found.size(); ++next)
      for (const pid_t child : children[found[next]]) found.push_back(child);
    return found;
  };
}

} // namespace arbiter::sandbox::detail
