#pragma once
/// Survivors: processes of an evaluation still alive once its runner has ended, found in the
/// evaluation's cgroup before anything kills them. Private to the sandbox.
#include <sys/types.h>

#include <string>
#include <vector>

namespace arbiter::sandbox::detail {

/// Of `members` (the evaluation cgroup's processes, read once the leader `leader` has ended and
/// before its group is killed), the command lines of those that outlived the runner: every live
/// process outside the leader's process group but a PID namespace's init (the sandbox's own,
/// which reaps and holds the namespace). Processes left in the group are the runner's own and die
/// with it; a process with SIGKILL pending or already a zombie is gone. A command line that cannot
/// be read reads as "pid N (command line unreadable)"; each is cut to 160 characters.
std::vector<std::string> find_survivors(const std::vector<pid_t>& members, pid_t leader);

} // namespace arbiter::sandbox::detail
