#pragma once
/// What isolation this machine gives a sandboxed process (docs/protocol.md, "Sandbox"), for
/// `arbiter doctor`: the engine, the system call filter and the cgroup, each with why not.
#include <string>
#include <vector>

namespace arbiter::sandbox {

struct host_isolation {
  bool root = false;       ///< isolation needs arbiter to run as root
  std::string engine;      ///< "bubblewrap" or "native"
  std::string engine_note; ///< why not bubblewrap (bwrap missing, or it fails here)
  std::string bwrap;       ///< the bwrap found, if any
  bool seccomp = false;
  std::string seccomp_note;                    ///< why not
  bool cgroup = false;                         ///< a cgroup v2 folder arbiter can create evaluation cgroups in
  std::string cgroup_parent;                   ///< that folder, or why there is none
  std::vector<std::string> cgroup_controllers; ///< those it can delegate (cgroup.controllers)
  /// Where the limits whose controller the cgroup v2 lacks come from instead (a hybrid host): one
  /// line per controller, "cpu: v1 at /sys/fs/cgroup/cpu" or "cpuset: none (why)".
  std::vector<std::string> cgroup_v1;
};

/// Probes once (bubblewrap is tried on a trivial command) and returns the same answer after.
const host_isolation& describe_host_isolation();

} // namespace arbiter::sandbox
