#pragma once
/// Reading a process from outside through /proc and a cgroup's process list: what the survivors'
/// census and the outside clock's process access both read. Private to the sandbox.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace arbiter::sandbox::detail {

/// /proc/<pid>/<file> whole; empty when the process is gone.
std::string read_proc(pid_t pid, const char* file);

/// /proc/<pid>/stat's state, parent and process group (after the command in parentheses, which may
/// hold spaces and parentheses itself); nullopt when the process is gone.
struct proc_stat {
  char state = 0;
  pid_t parent = 0, group = 0;
};
std::optional<proc_stat> read_proc_stat(pid_t pid);

/// The value of `key` in a /proc/<pid>/status text ("NSpid:\t812\t1" → "\t812\t1").
std::string status_value(const std::string& status, const std::string& key);

/// The pid in the innermost PID namespace: the last of the status text's NSpid chain.
std::optional<int> innermost_pid(const std::string& status);

/// The pids a cgroup.procs file lists (empty once the folder is gone).
std::vector<pid_t> read_pids(const std::string& procs_file);

/// The entries of a /proc folder named by a number (/proc: the pids; /proc/<pid>/task: the tids).
std::vector<pid_t> numbered_entries(const std::string& folder);

/// The host tids of every thread of pid (/proc/<pid>/task; empty once the process is gone).
std::vector<pid_t> read_tids(pid_t pid);

/// How long a thread has run on a CPU (ns): the first field of /proc/<pid>/task/<tid>/schedstat,
/// else utime + stime of its stat in clock ticks (a kernel without scheduler statistics).
std::optional<std::uint64_t> read_thread_run_ns(pid_t pid, pid_t tid);

} // namespace arbiter::sandbox::detail
