#include "arbiter/sandbox/host.hpp"

#include "detail/bwrap_plan.hpp"
#include "detail/cgroup.hpp"
#include "detail/engine.hpp"
#include "detail/seccomp_filter.hpp"
#include "detail/unique_fd.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace arbiter::sandbox::detail {
namespace {

std::string first_executable(std::initializer_list<const char*> paths) {
  for (const char* path : paths)
    if (::access(path, X_OK) == 0) return path;
  return {};
}

/// Runs argv with stdout and stderr into one pipe (and the seccomp program on its descriptor);
/// returns the wait status and the output's first line.
int run_quietly(const std::vector<std::string>& args, int seccomp_fd, std::string& output) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return -1;
  std::vector<char*> argv;
  for (auto const& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  char* envp[] = {const_cast<char*>("PATH=/usr/bin:/bin"), nullptr};
  pid_t const pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(fds[1], STDERR_FILENO);
    int const null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    if (seccomp_fd >= 0) ::dup2(seccomp_fd, bwrap_seccomp_fd);
    ::execve(argv[0], argv.data(), envp);
    ::_exit(127);
  }
  ::close(fds[1]);
  char buffer[4096];
  for (ssize_t got; (got = ::read(fds[0], buffer, sizeof buffer)) != 0;) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) break;
    if (output.size() < 4096) output.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (auto const newline = output.find('\n'); newline != std::string::npos) output.resize(newline);
  return status;
}

bubblewrap_probe probe() {
  bubblewrap_probe found;
  const char* forced = std::getenv("ARBITER_BWRAP");
  if (forced != nullptr && std::string(forced) == "off") {
    found.note = "ARBITER_BWRAP=off";
    return found;
  }
  found.bwrap =
      forced != nullptr && *forced != '\0' ? forced : first_executable({"/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"});
  found.setpriv = first_executable({"/usr/bin/setpriv", "/bin/setpriv"});
  if (found.bwrap.empty()) {
    found.note = "bwrap not found (Debian/Ubuntu package bubblewrap)";
    return found;
  }
  if (found.setpriv.empty()) {
    found.note = "setpriv not found (util-linux), bubblewrap cannot switch the user";
    return found;
  }
  if (::geteuid() != 0) {
    found.note = "not root";
    return found;
  }
  // A trial with the candidate's flags: a container may refuse namespaces, a fresh /proc or the filter.
  isolation trial;
  trial.enabled = true;
  trial.scratch_paths = {"/tmp", "/dev/shm"};
  bwrap_request request{found.bwrap, found.setpriv, {}, "/", false, {"/bin/sh", "-c", "exit 0"}};
  std::string error;
  unique_fd program;
  if (candidate_seccomp().available()) {
    program = unique_fd(seccomp_memfd(candidate_seccomp(), error));
    request.seccomp = program.valid();
  }
  std::string output;
  int const status = run_quietly(bwrap_argv(trial, request), program.get(), output);
  if (status == 0) {
    found.works = true;
    return found;
  }
  found.note = found.bwrap + " fails here (" +
      (WIFEXITED(status) ? "status " + std::to_string(WEXITSTATUS(status)) : "status " + std::to_string(status)) +
      (output.empty() ? "" : ": " + output) + ")";
  return found;
}

} // namespace

const bubblewrap_probe& probe_bubblewrap() {
  static const bubblewrap_probe found = probe();
  return found;
}

} // namespace arbiter::sandbox::detail

namespace arbiter::sandbox {

const host_isolation& describe_host_isolation() {
  static const host_isolation host = [] {
    host_isolation described;
    described.root = ::geteuid() == 0;
    auto const& bubblewrap = detail::probe_bubblewrap();
    described.bwrap = bubblewrap.bwrap;
    described.engine = bubblewrap.works ? "bubblewrap" : "native";
    described.engine_note = bubblewrap.note;
    auto const& program = detail::candidate_seccomp();
    described.seccomp = program.available();
    described.seccomp_note = program.error;
    std::string why;
    std::string const parent = detail::cgroup_parent(why);
    described.cgroup = !parent.empty();
    described.cgroup_parent = parent.empty() ? why : parent;
    if (!parent.empty()) {
      std::ifstream controllers(parent + "/cgroup.controllers");
      for (std::string name; controllers >> name;) described.cgroup_controllers.push_back(name);
    }
    for (const char* controller : detail::k_v1_controllers) {
      auto const& v2 = described.cgroup_controllers;
      if (std::find(v2.begin(), v2.end(), controller) != v2.end()) continue;
      std::string v1_why;
      std::string const v1 = detail::cgroup_v1_parent(controller, v1_why);
      described.cgroup_v1.push_back(std::string(controller) + ": " + (v1.empty() ? "none (" + v1_why + ")" : "v1 at " + v1));
    }
    return described;
  }();
  return host;
}

} // namespace arbiter::sandbox
