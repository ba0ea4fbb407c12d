#pragma once
/// The isolation of one child (process.hpp, `isolation`), turned before fork into a list of plain
/// operations that the child can carry out with async-signal-safe calls only. Private to the
/// sandbox.
#include "arbiter/sandbox/process.hpp"

#include <string>
#include <vector>

namespace arbiter::sandbox::detail {

struct seccomp_program;

enum class mount_op_kind : int {
  make_private,   ///< every mount of the new namespace private: nothing propagates back
  hide_folder,    ///< an empty tmpfs over target (made read-only once the binds are in)
  hide_file,      ///< /dev/null bound over target, read-only
  scratch_folder, ///< a fresh writable tmpfs (mode 1777, size-capped: options in source) over target
  make_folder,    ///< mkdir 0755 inside a hiding tmpfs, as a mount point
  make_file,      ///< an empty file inside a hiding tmpfs, as a mount point
  open_source,    ///< target opened O_PATH into slot, before anything hides it
  bind,           ///< the slot's descriptor (through /proc/self/fd) bound over target
  read_only,      ///< remount target read-only
  fresh_proc,     ///< a procfs of the new PID namespace on /proc (skipped without one)
};

struct mount_op {
  mount_op_kind kind = mount_op_kind::make_private;
  std::string target;
  int slot = -1;      ///< open_source, bind: index into isolation_plan::slots
  std::string source; ///< bind: room for "/proc/self/fd/<n>", written in the child; scratch: options
};

struct isolation_plan {
  bool active = false;     ///< isolation asked for and possible to try (the parent is root)
  std::string parent_note; ///< asked for but not active: why
  int unshare_flags = 0;
  /// unshare_flags without the PID, IPC and UTS namespaces: what is tried when all are refused.
  int fallback_flags = 0;
  bool pid_ns = false;                             ///< set in the child: the PID namespace was granted (the child forks an init)
  bool mount_ns = false;                           ///< set in the child: the mount namespace was granted
  const struct seccomp_program* seccomp = nullptr; ///< loaded last before exec when set
  std::vector<mount_op> ops;
  /// Descriptors of the open_source steps, filled in the child: a bind source must be a mount of
  /// the child's own namespace, so it is opened there, after unshare and before the hiding.
  std::vector<int> slots;
  uid_t uid = 0;
  gid_t gid = 0;
};

/// Resolves the paths (symlinks included), drops missing ones and roots nested in other roots,
/// and plans the bind of each exposed or writable path that lies under a hidden or scratch root.
isolation_plan make_isolation_plan(const isolation& wanted);

/// Child side, first step: unshare. A refusal that the contract lets degrade is reported as a
/// notice (then retried without the PID namespace); sets plan.pid_ns and plan.mount_ns.
void child_unshare(isolation_plan& plan, int report_fd);

/// Child side, in the process that will exec (PID 2 of the new namespace, or the only one): mounts,
/// user, no new privileges, seccomp. A refusal that the contract lets degrade is reported as a
/// notice; anything else fails the child through child_fail.
void child_isolate(isolation_plan& plan, int report_fd);

/// One line for a failed or skipped step of the plan, e.g. "bind /proc/self/fd/7 onto /d/x".
std::string describe_op(const mount_op& op);

} // namespace arbiter::sandbox::detail
