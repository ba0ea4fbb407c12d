#pragma once
/// The bubblewrap engine's command line, built before the fork from an `isolation` (pure: it reads
/// the file system only to resolve paths and drop missing ones). Private to the sandbox.
#include "arbiter/sandbox/process.hpp"

#include <map>
#include <string>
#include <vector>

namespace arbiter::sandbox::detail {

/// The descriptor the seccomp program is handed to bwrap on: clear of 0..5 (stdio, channel, gate,
/// the clock) and below the range the child lifts its own descriptors into.
inline constexpr int bwrap_seccomp_fd = 10;
/// The child lifts every descriptor it must keep to this number or above before placing them.
inline constexpr int child_lift_floor = 16;

struct bwrap_request {
  std::string bwrap;                ///< the bwrap binary
  std::string setpriv;              ///< the user switch run inside the sandbox
  std::vector<std::string> devices; ///< device nodes to pass through (/dev/nvidia*, /dev/nvidia-caps)
  std::string cwd;                  ///< entered inside; empty = leave
  bool seccomp = false;             ///< a program waits on bwrap_seccomp_fd
  std::vector<std::string> program; ///< argv, argv[0] resolved
};

/// bwrap [namespaces] --proc /proc --dev /dev [devices] [binds, tmpfs, hides by depth]
///   [--remount-ro hidden] [--chdir cwd] [--seccomp 10] -- setpriv --reuid U --regid G
///   --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs -- program...
std::vector<std::string> bwrap_argv(const isolation& wanted, const bwrap_request& request);

/// What the child's environment names as its toolchain, to be bound read-only beside the system:
/// each absolute folder on PATH and LD_LIBRARY_PATH, CUDA_HOME and CUDA_PATH, and the
/// installation CC and CXX belong to (the folder above their bin/, e.g. /opt/gcc for
/// /opt/gcc/bin/g++: its libexec and lib come with it). Paths only; existence is checked later.
std::vector<std::string> toolchain_paths(const std::map<std::string, std::string>& env);

/// The CUDA device nodes present on this machine: /dev/nvidia*, /dev/nvidia-caps.
std::vector<std::string> cuda_devices();

} // namespace arbiter::sandbox::detail
