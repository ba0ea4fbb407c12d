#pragma once
/// The pieces of sandbox::process_access that are not the cgroup's: holding an unisolated process
/// by signals and finding a process by the pid it has in its own PID namespace.
#include <sys/types.h>

#include "arbiter/sandbox/process.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace arbiter::sandbox::detail {

/// A host_pid lookup over the processes `members` lists when called.
std::function<std::optional<int>(int)> pid_finder(std::function<std::vector<pid_t>()> members);

/// Holds every process `members` lists (every thread of each) by SIGSTOP, returning once /proc
/// says each stopped (up to ~2 s), and lets the same ones go by SIGCONT. For processes without a
/// cgroup to freeze.
std::function<bool(bool)> signal_holder(std::function<std::vector<pid_t>()> members);

/// The pids a cgroup.procs file lists when called (empty once the folder is gone).
std::function<std::vector<pid_t>()> procs_lister(std::string procs_file);

/// Every thread of the processes `members` lists when called, with how long each has run.
std::function<std::vector<thread_sample>()> thread_lister(std::function<std::vector<pid_t>()> members);

/// leader and every process descended from it (by the parents /proc/<pid>/stat gives), when called.
std::function<std::vector<pid_t>()> descendants_lister(pid_t leader);

} // namespace arbiter::sandbox::detail
