#pragma once
/// The candidate's system call filter, compiled once with libseccomp into classic BPF: handed to
/// bubblewrap as a descriptor (--seccomp), or loaded by the hand-written engine's child just before
/// exec with one prctl (no allocation after fork). Private to the sandbox.
#include <linux/filter.h>

#include <string>
#include <vector>

namespace arbiter::sandbox::detail {

struct seccomp_program {
  std::vector<sock_filter> code; ///< empty when unavailable
  std::string error;             ///< why there is none: built without libseccomp, or its error
  bool available() const { return !code.empty(); }
};

/// The program for this machine's native architecture (other architectures' calls kill the
/// process): EPERM for ptrace, process_vm_readv/writev, perf_event_open, bpf, the mount family
/// (mount, umount2, pivot_root, fsopen, fsconfig, fsmount, fspick, move_mount, open_tree,
/// mount_setattr), unshare, setns, clone with a namespace flag, keyctl, add_key, request_key,
/// io_uring_setup/enter/register (its requests would pass the socket rule), userfaultfd, module and
/// kexec loading, and socket() for every family but AF_UNIX and AF_NETLINK; ENOSYS for clone3
/// (its flags cannot be inspected; the C library falls back to clone). Built on first use,
/// thread-safe.
const seccomp_program& candidate_seccomp();

/// The system calls the program denies, by name, for the documentation and the doctor.
std::vector<std::string> seccomp_denied_calls();

/// A memfd holding the program (struct sock_filter records, offset 0), close-on-exec; -1 with
/// `error` set when it cannot be made.
int seccomp_memfd(const seccomp_program& program, std::string& error);

/// Child side, async-signal-safe: installs the program (PR_SET_NO_NEW_PRIVS must be set). 0 or -1
/// with errno.
int child_load_seccomp(const seccomp_program& program);

} // namespace arbiter::sandbox::detail
