#pragma once
/// What a child tells its parent through the close-on-exec report pipe between fork and exec:
/// notices (isolation it had to do without) and at most one failure, after which it exits. Nothing
/// but EOF means exec succeeded. Only async-signal-safe calls on the child side. Private to the
/// sandbox.
#include <unistd.h>

#include <cerrno>

namespace arbiter::sandbox::detail {

/// The step of the child's start that a record is about.
enum class child_step : int {
  setsid,
  chdir,
  setrlimit,
  stdin_null,
  redirect,
  exec,
  unshare,
  mount,
  setgroups,
  setgid,
  setuid,
  no_new_privs,
  unshare_pid, ///< notice: the PID, IPC and UTS namespaces refused, the others tried alone
  proc_mount,  ///< notice: a fresh /proc refused
  seccomp,     ///< notice: the filter could not be loaded
  cgroup_join, ///< notice: the child could not move into its cgroup
  init_fork,   ///< the PID namespace's init could not fork the program
};

enum class record_kind : int { failure, notice };

struct child_record {
  record_kind kind = record_kind::failure;
  child_step step = child_step::exec;
  int error_number = 0;
  int detail = 0; ///< setrlimit: index into the limits; mount: index into the isolation ops
};

inline void child_write_record(int report_fd, const child_record& record) {
  ssize_t written;
  do {
    written = ::write(report_fd, &record, sizeof record);
  } while (written < 0 && errno == EINTR);
}

[[noreturn]] inline void child_fail(int report_fd, child_step step, int error_number, int detail = 0) {
  child_write_record(report_fd, {record_kind::failure, step, error_number, detail});
  ::_exit(127);
}

/// Something the child did without; it goes on.
inline void child_note(int report_fd, child_step step, int error_number) {
  child_write_record(report_fd, {record_kind::notice, step, error_number, 0});
}

} // namespace arbiter::sandbox::detail
