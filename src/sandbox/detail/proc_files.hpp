#pragma once
/// Reading a process from outside through /proc and a cgroup's process list: what the survivors'
/// census and the outside clock's process access both read. Private to the sandbox.
#include <sys/types.h>

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

} // namespace arbiter::sandbox::detail
