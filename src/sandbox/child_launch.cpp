#include "detail/child_launch.hpp"

#include "detail/child_report.hpp"
#include "detail/isolation_plan.hpp"
#include "detail/unique_fd.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
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

[[noreturn]] void child_main(exec_plan& plan, int output_fd, int channel, int gate, int report_fd) {
  int const lowest = gate_fd + 1; // clear of 0..2 and of the channel's and the gate's own slots
  report_fd = child_lift_fd(report_fd, lowest, report_fd);
  output_fd = child_lift_fd(output_fd, lowest, report_fd);
  channel = child_lift_fd(channel, lowest, report_fd);
  gate = child_lift_fd(gate, lowest, report_fd);
  child_reset_signals();
  if (::setsid() < 0) child_fail(report_fd, child_step::setsid, errno);
  for (std::size_t limit_idx = 0; limit_idx < plan.limits.size(); ++limit_idx) {
    auto const& limit = plan.limits[limit_idx];
    if (::setrlimit(limit.resource, &limit.value) != 0) {
      child_fail(report_fd, child_step::setrlimit, errno, static_cast<int>(limit_idx));
    }
  }
  // cwd only after the mounts (a folder entered before them would still reach what they hide)
  // and as the sandbox user (who must be able to enter it).
  if (plan.isolation.active) child_isolate(plan.isolation, report_fd);
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
  case child_step::unshare: return "unshare(CLONE_NEWNET | CLONE_NEWNS) refused (" + why + "): no private network or file view";
  case child_step::mount: return "sandbox mount failed, " + (op_idx < ops.size() ? describe_op(ops[op_idx]) : "?") + ": " + why;
  case child_step::setgroups: return "setgroups refused (" + why + "): no switch to uid " + std::to_string(plan.isolation.uid);
  case child_step::setgid: return "setresgid(" + std::to_string(plan.isolation.gid) + "): " + why;
  case child_step::setuid: return "setresuid(" + std::to_string(plan.isolation.uid) + "): " + why;
  case child_step::no_new_privs: return "prctl(PR_SET_NO_NEW_PRIVS): " + why;
  default: return {};
  }
}

std::string describe_failure(const child_record& failure, const exec_plan& plan, const process_spec& spec) {
  if (std::string const isolation = describe_step(failure, plan); !isolation.empty()) return isolation;
  std::string const why = std::strerror(failure.error_number);
  switch (failure.step) {
  case child_step::setsid: return "setsid: " + why;
  case child_step::chdir: return "chdir(" + spec.cwd + "): " + why;
  case child_step::setrlimit: {
    auto const idx = static_cast<std::size_t>(failure.detail);
    return std::string("setrlimit(") + (idx < plan.limits.size() ? plan.limits[idx].name : "?") + "): " + why;
  }
  case child_step::stdin_null: return "stdin from /dev/null: " + why;
  case child_step::redirect: return "redirecting stdout/stderr: " + why;
  default: break;
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
bool read_report(int report_fd, const exec_plan& plan, child_record& failure, std::vector<std::string>& notes) {
  child_record record;
  while (read_record(report_fd, record)) {
    if (record.kind != record_kind::notice) {
      failure = record;
      return true;
    }
    notes.push_back(describe_step(record, plan));
  }
  return false;
}

void reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

launch_result not_started(std::string why) {
  launch_result result;
  result.error = std::move(why);
  return result;
}

} // namespace

launch_result launch_child(const process_spec& spec, int output_fd, int channel, int gate) {
  if (spec.argv.empty() || spec.argv.front().empty()) return not_started("argv is empty");
  exec_plan plan;
  try {
    plan = make_plan(spec);
  } catch (const std::exception& e) { // a path to bind back that cannot be opened: never run half-hidden
    return not_started(e.what());
  }
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return not_started(std::string("pipe2: ") + std::strerror(errno));
  unique_fd report_read(report[0]);
  unique_fd report_write(report[1]);
  pid_t const pid = ::fork();
  if (pid < 0) return not_started(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) child_main(plan, output_fd, channel, gate, report_write.get());
  report_write.reset();
  child_record failure;
  launch_result launched;
  if (!plan.isolation.parent_note.empty()) launched.notes.push_back(plan.isolation.parent_note);
  if (!read_report(report_read.get(), plan, failure, launched.notes)) {
    launched.pid = pid;
    launched.isolated = plan.isolation.active && launched.notes.empty();
    return launched;
  }
  reap(pid);
  launched.error = describe_failure(failure, plan, spec);
  return launched;
}

} // namespace arbiter::sandbox::detail
