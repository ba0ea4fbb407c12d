#include "detail/child_launch.hpp"

#include "detail/bwrap_plan.hpp"
#include "detail/child_report.hpp"
#include "detail/engine.hpp"
#include "detail/isolation_plan.hpp"
#include "detail/seccomp_filter.hpp"
#include "detail/unique_fd.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <cstring>
#include <exception>

namespace arbiter::sandbox::detail {
namespace {

struct limit_setting {
  int resource = 0;
  const char* name = "";
  rlimit value{};
};

/// Everything the child needs, built before fork: after fork in a threaded parent the child may
/// only call async-signal-safe functions, so it must not allocate.
struct exec_plan {
  std::vector<std::string> candidates; ///< paths to try for argv[0], in PATH order
  std::vector<std::string> env_strings;
  std::vector<char*> argv, envp, sh_argv;
  std::vector<limit_setting> limits;
  const char* cwd = nullptr;
  std::string search_path; ///< for the error message
  isolation_plan isolation;
  bool bubblewrap = false; ///< the child execs bwrap_args instead of isolating itself
  std::vector<std::string> bwrap_args;
  std::vector<char*> bwrap_argv;
  std::string engine_note; ///< isolation active but not through bubblewrap: why
};

std::string path_for_search(const process_spec& spec) {
  if (auto const it = spec.env.find("PATH"); it != spec.env.end()) return it->second;
  if (const char* inherited = std::getenv("PATH")) return inherited;
  return "/bin:/usr/bin";
}

/// execvp's lookup: a name with '/' is used as is; otherwise each PATH entry in turn, an empty
/// entry meaning the working directory.
void plan_candidates(exec_plan& plan, const process_spec& spec) {
  std::string const& name = spec.argv.front();
  if (name.find('/') != std::string::npos) {
    plan.candidates.push_back(name);
    return;
  }
  plan.search_path = path_for_search(spec);
  std::size_t begin = 0;
  while (begin <= plan.search_path.size()) {
    std::size_t end = plan.search_path.find(':', begin);
    if (end == std::string::npos) end = plan.search_path.size();
    std::string const dir = plan.search_path.substr(begin, end - begin);
    plan.candidates.push_back((dir.empty() ? std::string(".") : dir) + "/" + name);
    begin = end + 1;
  }
}

/// Requests above the hard limit are lowered to it: an unprivileged parent cannot raise a hard
/// limit, and the child is never given more than the parent has anyway.
void add_limit(exec_plan& plan, int resource, const char* name, rlim_t wanted) {
  rlimit current{};
  if (::getrlimit(resource, &current) == 0 && current.rlim_max != RLIM_INFINITY &&
      (wanted == RLIM_INFINITY || wanted > current.rlim_max)) {
    wanted = current.rlim_max;
  }
  plan.limits.push_back({resource, name, rlimit{wanted, wanted}});
}

void plan_limits(exec_plan& plan, const resource_limits& limits) {
  auto const or_infinity = [](std::uint64_t value) { return value == 0 ? RLIM_INFINITY : rlim_t(value); };
  add_limit(plan, RLIMIT_CORE, "RLIMIT_CORE", 0);
  add_limit(plan, RLIMIT_FSIZE, "RLIMIT_FSIZE", rlim_t(limits.max_file_bytes));
  add_limit(plan, RLIMIT_NOFILE, "RLIMIT_NOFILE", rlim_t(limits.max_open_files));
  if (limits.max_processes != 0) add_limit(plan, RLIMIT_NPROC, "RLIMIT_NPROC", rlim_t(limits.max_processes));
  add_limit(plan, RLIMIT_AS, "RLIMIT_AS", or_infinity(limits.address_space_bytes));
  add_limit(plan, RLIMIT_CPU, "RLIMIT_CPU", or_infinity(limits.cpu_seconds));
}

/// argv[0] as the sandbox will find it: the first candidate the parent can execute.
std::string resolved_program(const exec_plan& plan) {
  for (auto const& candidate : plan.candidates)
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  return plan.candidates.empty() ? std::string() : plan.candidates.front();
}

/// Bubblewrap unless it is turned off, missing or fails here; then the hand-written engine.
void plan_engine(exec_plan& plan, const process_spec& spec) {
  if (spec.sandbox.engine == isolation_engine::native) {
    plan.engine_note = "the hand-written engine was asked for";
    return;
  }
  auto const& bubblewrap = probe_bubblewrap();
  if (!bubblewrap.works) {
    plan.engine_note = "no bubblewrap: " + bubblewrap.note;
    return;
  }
  bwrap_request request;
  request.bwrap = bubblewrap.bwrap;
  request.setpriv = bubblewrap.setpriv;
  request.devices = cuda_devices();
  if (!spec.cwd.empty()) {
    std::error_code ec;
    auto const canonical = std::filesystem::canonical(spec.cwd, ec);
    request.cwd = ec ? spec.cwd : canonical.string();
  }
  request.seccomp = spec.sandbox.seccomp && candidate_seccomp().available();
  request.program = spec.argv;
  request.program.front() = resolved_program(plan);
  plan.bubblewrap = true;
  isolation wanted = spec.sandbox; // the toolchain the environment names (a compiler under /opt) comes along
  for (auto& path : toolchain_paths(spec.env)) wanted.exposed_paths.push_back(std::move(path));
  plan.bwrap_args = bwrap_argv(wanted, request);
  for (auto& arg : plan.bwrap_args) plan.bwrap_argv.push_back(arg.data());
  plan.bwrap_argv.push_back(nullptr);
}

exec_plan make_plan(const process_spec& spec) {
  exec_plan plan;
  plan_candidates(plan, spec);
  plan_limits(plan, spec.limits);
  for (auto const& [key, value] : spec.env) plan.env_strings.push_back(key + "=" + value);
  for (auto const& arg : spec.argv) plan.argv.push_back(const_cast<char*>(arg.c_str()));
  plan.argv.push_back(nullptr);
  for (auto& entry : plan.env_strings) plan.envp.push_back(entry.data());
  plan.envp.push_back(nullptr);
  // execvp runs a file without a valid header through /bin/sh; slot 1 is filled in the child.
  plan.sh_argv = {const_cast<char*>("/bin/sh"), nullptr};
  plan.sh_argv.insert(plan.sh_argv.end(), plan.argv.begin() + 1, plan.argv.end());
  plan.cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
  plan.isolation = make_isolation_plan(spec.sandbox);
  if (plan.isolation.active) plan_engine(plan, spec);
  return plan;
}

// ---- child side: async-signal-safe calls only ----

/// Signal dispositions set to "ignore" survive exec; the child starts from the defaults.
void child_reset_signals() {
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr); // EINVAL for RT gaps is fine
  }
}

/// Moves a descriptor to `lowest` or above so that the dup2 onto 0..lowest-1 cannot clobber it.
int child_lift_fd(int fd, int lowest, int report_fd) {
  if (fd < 0 || fd >= lowest) return fd;
  int const lifted = ::fcntl(fd, F_DUPFD_CLOEXEC, lowest);
  if (lifted < 0) child_fail(report_fd, child_step::redirect, errno);
  return lifted;
}

/// stdin from /dev/null, stdout and stderr onto output_fd, the channel (if any) onto channel_fd,
/// the gate (if any) onto gate_fd; every other descriptor close-on-exec. The inputs are all above
/// the targets (child_lift_fd).
void child_redirect(int output_fd, int channel, int gate, int report_fd) {
  int const null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd < 0) child_fail(report_fd, child_step::stdin_null, errno);
  if (null_fd != STDIN_FILENO) {
    if (::dup2(null_fd, STDIN_FILENO) < 0) child_fail(report_fd, child_step::stdin_null, errno);
    ::close(null_fd);
  }
  if (::dup2(output_fd, STDOUT_FILENO) < 0 || ::dup2(output_fd, STDERR_FILENO) < 0) {
    child_fail(report_fd, child_step::redirect, errno);
  }
  if (channel >= 0 && ::dup2(channel, channel_fd) < 0) child_fail(report_fd, child_step::redirect, errno);
  if (gate >= 0 && ::dup2(gate, gate_fd) < 0) child_fail(report_fd, child_step::redirect, errno);
  // Nothing else the parent had open reaches the program (report_fd is close-on-exec already).
  if (channel < 0) ::fcntl(channel_fd, F_SETFD, FD_CLOEXEC); // EBADF when nothing is there
  int const first_closed = gate >= 0 ? gate_fd + 1 : (channel >= 0 ? channel_fd + 1 : channel_fd);
  if (::syscall(SYS_close_range, unsigned(first_closed), ~0u, 4u /* CLOSE_RANGE_CLOEXEC */) != 0) {
    long const max_fd = ::sysconf(_SC_OPEN_MAX);
    for (int fd = first_closed; fd < (max_fd > 0 && max_fd < 65536 ? max_fd : 65536); ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
}

[[noreturn]] void child_exec(exec_plan& plan, int report_fd) {
  int last_errno = ENOENT;
  bool saw_eacces = false;
  for (auto& candidate : plan.candidates) {
    ::execve(candidate.c_str(), plan.argv.data(), plan.envp.data());
    last_errno = errno;
    if (last_errno == ENOEXEC) {
      plan.sh_argv[1] = candidate.data();
      ::execve("/bin/sh", plan.sh_argv.data(), plan.envp.data());
      last_errno = errno;
    }
    if (last_errno == EACCES) saw_eacces = true;
    if (last_errno != EACCES && last_errno != ENOENT && last_errno != ENOTDIR) break;
  }
  if (saw_eacces && (last_errno == ENOENT || last_errno == ENOTDIR)) last_errno = EACCES;
  child_fail(report_fd, child_step::exec, last_errno);
}

/// The descriptors the child keeps until exec, lifted clear of everything it places.
struct child_fds {
  int output = -1, channel = -1, gate = -1, seccomp = -1, report = -1;
  cgroup_procs_fds cgroups = no_cgroup(); ///< each folder's cgroup.procs, -1 where none
};

/// Keeps only `keep` (moved to descriptor 3) besides stdio: a process that never execs would
/// otherwise hold every close-on-exec descriptor of the parent, a gate's write end among them.
int child_keep_only(int keep) {
  if (keep != 3 && ::dup2(keep, 3) < 0) return -1;
  if (::syscall(SYS_close_range, 4u, ~0u, 0u) != 0) {
    long const max_fd = ::sysconf(_SC_OPEN_MAX);
    for (int fd = 4; fd < (max_fd > 0 && max_fd < 65536 ? max_fd : 65536); ++fd) ::close(fd);
  }
  return 3;
}

/// The outer process of a PID namespace: waits for its init and ends as the program ended (its
/// wait status comes over `status_fd`; an init killed before it could tell ends this one alike).
[[noreturn]] void child_mirror(pid_t init, int status_fd) {
  int status = 0;
  std::size_t received = 0;
  while (received < sizeof status) {
    ssize_t const got = ::read(status_fd, reinterpret_cast<char*>(&status) + received, sizeof status - received);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    received += static_cast<std::size_t>(got);
  }
  int init_status = 0;
  while (::waitpid(init, &init_status, 0) < 0 && errno == EINTR) {}
  if (received < sizeof status) status = init_status;
  if (WIFEXITED(status)) ::_exit(WEXITSTATUS(status));
  int const sig = WTERMSIG(status);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(sig, &dfl, nullptr);
  ::kill(::getpid(), sig);
  ::_exit(128 + sig); // a signal whose default is to be ignored
}

/// After unshare(CLONE_NEWPID): forks the namespace's init (PID 1), which forks the program
/// (PID 2) and reaps until it ends; the kernel then kills whatever is left in the namespace.
/// Returns in the program's process only. The program is not PID 1 so that it keeps the usual
/// signal semantics (PID 1 ignores every signal it has no handler for, abort()'s included).
void child_start_init(child_fds& fds) {
  int status_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) child_fail(fds.report, child_step::init_fork, errno);
  pid_t const init = ::fork();
  if (init < 0) child_fail(fds.report, child_step::init_fork, errno);
  if (init > 0) child_mirror(init, child_keep_only(status_pipe[0]));
  ::prctl(PR_SET_PDEATHSIG, SIGKILL); // the outer process gone (killed on timeout): all of it goes
  ::close(status_pipe[0]);
  pid_t const program = ::fork();
  if (program < 0) child_fail(fds.report, child_step::init_fork, errno);
  if (program == 0) {
    ::close(status_pipe[1]);
    return;
  }
  int const status_fd = child_keep_only(status_pipe[1]);
  while (true) {
    int status = 0;
    pid_t const ended = ::waitpid(-1, &status, 0);
    if (ended == program) {
      ssize_t const written = ::write(status_fd, &status, sizeof status);
      ::_exit(written == static_cast<ssize_t>(sizeof status) ? 0 : 127);
    }
    if (ended < 0 && errno != EINTR) ::_exit(127);
  }
}

[[noreturn]] void child_exec_bubblewrap(exec_plan& plan, const child_fds& fds) {
  child_redirect(fds.output, fds.channel, fds.gate, fds.report);
  if (fds.seccomp >= 0 && ::dup2(fds.seccomp, bwrap_seccomp_fd) < 0) child_fail(fds.report, child_step::redirect, errno);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL); // arbiter gone: bwrap's outer process too (no --die-with-parent, bwrap_plan)
  ::execve(plan.bwrap_argv[0], plan.bwrap_argv.data(), plan.envp.data());
  child_fail(fds.report, child_step::exec, errno);
}

[[noreturn]] void child_main(exec_plan& plan, child_fds fds) {
  int const lowest = child_lift_floor; // clear of 0..5 (stdio, channel, gate, clock) and bwrap_seccomp_fd
  fds.report = child_lift_fd(fds.report, lowest, fds.report);
  for (int* fd : {&fds.output, &fds.channel, &fds.gate, &fds.seccomp}) *fd = child_lift_fd(*fd, lowest, fds.report);
  for (int& fd : fds.cgroups) fd = child_lift_fd(fd, lowest, fds.report);
  int const report_fd = fds.report;
  int const output_fd = fds.output;
  int const channel = fds.channel;
  int const gate = fds.gate;
  child_reset_signals();
  if (::setsid() < 0) child_fail(report_fd, child_step::setsid, errno);
  for (std::size_t limit_idx = 0; limit_idx < plan.limits.size(); ++limit_idx) {
    auto const& limit = plan.limits[limit_idx];
    if (::setrlimit(limit.resource, &limit.value) != 0) {
      child_fail(report_fd, child_step::setrlimit, errno, static_cast<int>(limit_idx));
    }
  }
  // Into the evaluation's cgroup before anything else starts: every descendant is born in it.
  for (int const fd : fds.cgroups)
    if (fd >= 0 && ::write(fd, "0", 1) != 1) child_note(report_fd, child_step::cgroup_join, errno);
  if (plan.bubblewrap) child_exec_bubblewrap(plan, fds);
  // cwd only after the mounts (a folder entered before them would still reach what they hide)
  // and as the sandbox user (who must be able to enter it).
  if (plan.isolation.active) {
    child_unshare(plan.isolation, report_fd);
    if (plan.isolation.pid_ns) child_start_init(fds);
    child_isolate(plan.isolation, report_fd);
  }
  if (plan.cwd != nullptr && ::chdir(plan.cwd) != 0) child_fail(report_fd, child_step::chdir, errno);
  child_redirect(output_fd, channel, gate, report_fd);
  child_exec(plan, report_fd);
}

// ---- parent side ----

std::string describe_step(const child_record& failure, const exec_plan& plan) {
  std::string const why = std::strerror(failure.error_number);
  auto const& ops = plan.isolation.ops;
  auto const op_idx = static_cast<std::size_t>(failure.detail);
  switch (failure.step) {
  case child_step::unshare:
    return "unshare(CLONE_NEWNET | CLONE_NEWNS) refused (" + why + "): no private network or file view";
  case child_step::mount:
    return "sandbox mount failed, " + (op_idx < ops.size() ? describe_op(ops[op_idx]) : "?") + ": " + why;
  case child_step::setgroups:
    return "setgroups refused (" + why + "): no switch to uid " + std::to_string(plan.isolation.uid);
  case child_step::setgid:
    return "setresgid(" + std::to_string(plan.isolation.gid) + "): " + why;
  case child_step::setuid:
    return "setresuid(" + std::to_string(plan.isolation.uid) + "): " + why;
  case child_step::no_new_privs:
    return "prctl(PR_SET_NO_NEW_PRIVS): " + why;
  case child_step::unshare_pid:
    return "unshare(CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS) refused (" + why +
        "): no PID namespace, the host's process list stays visible and a process that leaves the group can outlive the run";
  case child_step::proc_mount:
    return "a fresh /proc refused (" + why + "): the host's process list stays visible";
  case child_step::seccomp:
    return "seccomp filter refused (" + why + ")";
  case child_step::cgroup_join:
    return "moving into the evaluation's cgroup failed (" + why + ")";
  case child_step::init_fork:
    return "starting the PID namespace's init: " + why;
  default:
    return {};
  }
}

std::string describe_failure(const child_record& failure, const exec_plan& plan, const process_spec& spec) {
  if (std::string const isolation = describe_step(failure, plan); !isolation.empty()) return isolation;
  std::string const why = std::strerror(failure.error_number);
  switch (failure.step) {
  case child_step::setsid:
    return "setsid: " + why;
  case child_step::chdir:
    return "chdir(" + spec.cwd + "): " + why;
  case child_step::setrlimit: {
    auto const idx = static_cast<std::size_t>(failure.detail);
    return std::string("setrlimit(") + (idx < plan.limits.size() ? plan.limits[idx].name : "?") + "): " + why;
  }
  case child_step::stdin_null:
    return "stdin from /dev/null: " + why;
  case child_step::redirect:
    return "redirecting stdout/stderr: " + why;
  default:
    break;
  }
  std::string text = "cannot execute '" + spec.argv.front() + "': " + why;
  if (!plan.search_path.empty()) text += " (searched PATH=" + plan.search_path + ")";
  return text;
}

/// Reads one record; false at EOF. A short or unreadable record reads as an exec failure.
bool read_record(int report_fd, child_record& record) {
  std::size_t received = 0;
  auto* bytes = reinterpret_cast<char*>(&record);
  while (received < sizeof record) {
    ssize_t const got = ::read(report_fd, bytes + received, sizeof record - received);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      record = {record_kind::failure, child_step::exec, errno, 0};
      return true;
    }
    received += static_cast<std::size_t>(got);
  }
  if (received == 0) return false;
  if (received < sizeof record) record = {record_kind::failure, child_step::exec, EPROTO, 0};
  return true;
}

/// Reads the report pipe to its end (EOF: exec succeeded): notices into `notes`, a failure into
/// `failure`. Returns whether the child failed.
bool read_report(int report_fd, child_record& failure, std::vector<child_record>& notices) {
  child_record record;
  while (read_record(report_fd, record)) {
    if (record.kind != record_kind::notice) {
      failure = record;
      return true;
    }
    notices.push_back(record);
  }
  return false;
}

/// Notices that degrade the view or the user (isolation_applied false) against those that only
/// cost an optional layer (isolation_missing).
bool core_notice(child_step step) {
  return step == child_step::unshare || step == child_step::unshare_pid || step == child_step::setgroups;
}

/// What took effect and what was done without, from the plan and the child's notices.
void describe_layers(const exec_plan& plan, const process_spec& spec, const std::vector<child_record>& notices,
                     launch_result& launched) {
  auto const noticed = [&](child_step step) {
    return std::any_of(notices.begin(), notices.end(), [&](const child_record& r) { return r.step == step; });
  };
  for (auto const& notice : notices) {
    std::string const line = describe_step(notice, plan);
    (core_notice(notice.step) ? launched.notes : launched.missing).push_back(line);
  }
  if (!plan.isolation.active) return;
  auto& layers = launched.layers;
  bool const seccomp_asked = spec.sandbox.seccomp;
  bool const seccomp_ready = candidate_seccomp().available();
  if (seccomp_asked && !seccomp_ready) launched.missing.push_back("seccomp: " + candidate_seccomp().error);
  if (plan.bubblewrap) {
    launched.engine = "bubblewrap";
    layers = {"allow-list root", "pid namespace", "fresh /proc", "ipc namespace", "uts namespace"};
    if (spec.sandbox.new_net_ns) layers.push_back("network namespace");
    layers.insert(layers.end(), {"user switch", "no new privileges"});
    if (seccomp_asked && seccomp_ready) layers.push_back("seccomp");
  } else {
    launched.engine = "native";
    launched.missing.push_back("allow-list root: " + plan.engine_note + "; the hand-written engine hides a deny-list");
    bool const namespaces = !noticed(child_step::unshare);
    bool const pid = namespaces && !noticed(child_step::unshare_pid) && spec.sandbox.new_pid_ns;
    if (namespaces && spec.sandbox.new_mount_ns) layers.push_back("deny-list view");
    if (pid) layers.insert(layers.end(), {"pid namespace", "ipc namespace", "uts namespace"});
    if (pid && spec.sandbox.new_mount_ns && !noticed(child_step::proc_mount)) layers.push_back("fresh /proc");
    if (namespaces && spec.sandbox.new_net_ns) layers.push_back("network namespace");
    if (!noticed(child_step::setgroups)) layers.push_back("user switch");
    layers.push_back("no new privileges");
    if (plan.isolation.seccomp != nullptr && !noticed(child_step::seccomp)) layers.push_back("seccomp");
  }
  if (spec.sandbox.scratch_max_bytes > 0 && !spec.sandbox.scratch_paths.empty()) layers.push_back("size-capped scratch");
}

void reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
}

launch_result not_started(std::string why) {
  launch_result result;
  result.error = std::move(why);
  return result;
}

} // namespace

launch_result launch_child(const process_spec& spec, int output_fd, int channel, int gate, const cgroup_procs_fds& cgroup_procs) {
  if (spec.argv.empty() || spec.argv.front().empty()) return not_started("argv is empty");
  exec_plan plan;
  try {
    plan = make_plan(spec);
  } catch (const std::exception& e) { // a path to bind back that cannot be opened: never run half-hidden
    return not_started(e.what());
  }
  unique_fd seccomp;
  if (plan.bubblewrap && spec.sandbox.seccomp && candidate_seccomp().available()) {
    std::string error;
    seccomp = unique_fd(seccomp_memfd(candidate_seccomp(), error));
    if (!seccomp.valid()) return not_started(error); // asked for and ready: never run without it silently
  }
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return not_started(std::string("pipe2: ") + std::strerror(errno));
  unique_fd report_read(report[0]);
  unique_fd report_write(report[1]);
  pid_t const pid = ::fork();
  if (pid < 0) return not_started(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) child_main(plan, {output_fd, channel, gate, seccomp.get(), report_write.get(), cgroup_procs});
  report_write.reset();
  seccomp.reset();
  child_record failure;
  launch_result launched;
  if (!plan.isolation.parent_note.empty()) launched.notes.push_back(plan.isolation.parent_note);
  std::vector<child_record> notices;
  if (!read_report(report_read.get(), failure, notices)) {
    launched.pid = pid;
    describe_layers(plan, spec, notices, launched);
    launched.isolated = plan.isolation.active && launched.notes.empty();
    return launched;
  }
  reap(pid);
  launched.error = describe_failure(failure, plan, spec);
  return launched;
}

} // namespace arbiter::sandbox::detail
