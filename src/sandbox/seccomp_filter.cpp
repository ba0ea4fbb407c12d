#include "detail/seccomp_filter.hpp"

#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#if ARBITER_HAVE_SECCOMP
#include <seccomp.h>
#endif

namespace arbiter::sandbox::detail {
namespace {

/// Denied with EPERM, whatever their arguments.
constexpr const char* k_denied[] = {
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "perf_event_open",
    "bpf",
    "mount",
    "umount2",
    "pivot_root",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "move_mount",
    "open_tree",
    "mount_setattr",
    "unshare",
    "setns",
    "keyctl",
    "add_key",
    "request_key",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "userfaultfd",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
};

constexpr unsigned long k_namespace_flags[] = {CLONE_NEWNS,  CLONE_NEWUSER, CLONE_NEWPID,   CLONE_NEWNET,
                                               CLONE_NEWIPC, CLONE_NEWUTS,  CLONE_NEWCGROUP};

#if ARBITER_HAVE_SECCOMP
struct filter_context {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  ~filter_context() {
    if (ctx != nullptr) seccomp_release(ctx);
  }
};

std::string add_rules(scmp_filter_ctx ctx) {
  auto const failed = [](const char* what, int rc) { return std::string(what) + ": " + std::strerror(-rc); };
  for (const char* name : k_denied) {
    int const nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue; // not on this architecture or this libseccomp
    if (int const rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0); rc < 0) return failed(name, rc);
  }
  for (unsigned long const flag : k_namespace_flags) {
    if (int const rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
        rc < 0)
      return failed("clone", rc);
  }
  if (int const nr = seccomp_syscall_resolve_name("clone3"); nr != __NR_SCMP_ERROR) {
    if (int const rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0); rc < 0) return failed("clone3", rc);
  }
  // socket(): AF_UNIX (1) and AF_NETLINK (16) only. One comparison per rule: 0, 2..15, above 16.
  auto const deny_family = [&](scmp_compare op, scmp_datum_t value) {
    return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1, SCMP_A0(op, value));
  };
  if (int const rc = deny_family(SCMP_CMP_GT, AF_NETLINK); rc < 0) return failed("socket", rc);
  for (scmp_datum_t family = 0; family < AF_NETLINK; ++family) {
    if (family == AF_UNIX) continue;
    if (int const rc = deny_family(SCMP_CMP_EQ, family); rc < 0) return failed("socket", rc);
  }
  return {};
}

seccomp_program build() {
  seccomp_program program;
  filter_context filter;
  if (filter.ctx == nullptr) {
    program.error = "seccomp_init failed";
    return program;
  }
  // Calls of another architecture (int 0x80 on x86_64) are killed: the default for a foreign arch.
  if (std::string const error = add_rules(filter.ctx); !error.empty()) {
    program.error = "libseccomp: " + error;
    return program;
  }
  int const fd = ::memfd_create("arbiter-seccomp", MFD_CLOEXEC);
  if (fd < 0) {
    program.error = std::string("memfd_create: ") + std::strerror(errno);
    return program;
  }
  if (int const rc = seccomp_export_bpf(filter.ctx, fd); rc < 0) {
    program.error = std::string("seccomp_export_bpf: ") + std::strerror(-rc);
    ::close(fd);
    return program;
  }
  off_t const size = ::lseek(fd, 0, SEEK_END);
  if (size <= 0 || size % static_cast<off_t>(sizeof(sock_filter)) != 0) {
    program.error = "seccomp_export_bpf wrote " + std::to_string(size) + " bytes";
    ::close(fd);
    return program;
  }
  program.code.resize(static_cast<std::size_t>(size) / sizeof(sock_filter));
  if (::pread(fd, program.code.data(), static_cast<std::size_t>(size), 0) != size) {
    program.error = std::string("reading the exported filter: ") + std::strerror(errno);
    program.code.clear();
  }
  ::close(fd);
  return program;
}
#else
seccomp_program build() {
  seccomp_program program;
  program.error = "arbiter was built without libseccomp";
  return program;
}
#endif

} // namespace

const seccomp_program& candidate_seccomp() {
  static const seccomp_program program = build();
  return program;
}

std::vector<std::string> seccomp_denied_calls() {
  std::vector<std::string> names(std::begin(k_denied), std::end(k_denied));
  names.insert(names.end(), {"clone (namespace flags)", "clone3 (ENOSYS)", "socket (families but AF_UNIX, AF_NETLINK)"});
  return names;
}

int seccomp_memfd(const seccomp_program& program, std::string& error) {
  int const fd = ::memfd_create("arbiter-seccomp", MFD_CLOEXEC);
  if (fd < 0) {
    error = std::string("memfd_create: ") + std::strerror(errno);
    return -1;
  }
  auto const bytes = static_cast<ssize_t>(program.code.size() * sizeof(sock_filter));
  if (::pwrite(fd, program.code.data(), static_cast<std::size_t>(bytes), 0) != bytes) {
    error = std::string("writing the seccomp filter: ") + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  return fd;
}

int child_load_seccomp(const seccomp_program& program) {
  sock_fprog prog{};
  prog.len = static_cast<unsigned short>(program.code.size());
  prog.filter = const_cast<sock_filter*>(program.code.data());
  return ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

} // namespace arbiter::sandbox::detail
