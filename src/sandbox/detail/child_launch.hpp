#pragma once
/// The fork/exec half of the sandbox: starts one child as the leader of a new session with its
/// rlimits, working directory, environment and output set up, and reports whether exec worked.
/// Private to the sandbox.
#include "arbiter/sandbox/process.hpp"
#include "detail/cgroup.hpp"

#include <sys/types.h>

#include <string>
#include <vector>

namespace arbiter::sandbox::detail {

/// No cgroup folder to join.
inline cgroup_procs_fds no_cgroup() {
  cgroup_procs_fds none;
  none.fill(-1);
  return none;
}

struct launch_result {
  pid_t pid = -1;                   ///< the running child (also its process group and session id); -1 on failure
  std::string error;                ///< why the child did not start; the child has already been reaped
  bool isolated = false;            ///< spec.sandbox asked for and fully applied
  std::vector<std::string> notes;   ///< isolation asked for and done without, one line each
  std::string engine;               ///< "bubblewrap", "native"; empty when nothing was isolated
  std::vector<std::string> layers;  ///< what took effect
  std::vector<std::string> missing; ///< optional layers done without, one line each
};

/// Forks and execs spec.argv with stdin on /dev/null, stdout and stderr on `output_fd` and, when
/// `channel` is a descriptor, that on descriptor channel_fd (3), and when `gate` is one, that on
/// descriptor gate_fd (4); nothing else stays open. `cgroup_procs` are the evaluation cgroup's
/// cgroup.procs, one per folder (-1 where none): the child moves itself into each before anything
/// else.
/// Returns once the child has exec'd or failed to; a failure in the child before or at exec comes
/// back through a close-on-exec pipe as `error`. Never throws for anything the child does.
launch_result launch_child(const process_spec& spec, int output_fd, int channel = -1, int gate = -1,
                           const cgroup_procs_fds& cgroup_procs = no_cgroup());

} // namespace arbiter::sandbox::detail
