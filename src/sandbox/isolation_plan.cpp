#include "detail/isolation_plan.hpp"

#include "arbiter/common/error.hpp"
#include "detail/child_report.hpp"
#include "detail/seccomp_filter.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace arbiter::sandbox::detail {
namespace {

namespace fs = std::filesystem;

/// The canonical form of each path that exists; "/" never (it would hide the system itself).
std::vector<fs::path> existing(const std::vector<std::string>& paths) {
  std::vector<fs::path> out;
  for (auto const& path : paths) {
    std::error_code ec;
    fs::path const resolved = fs::canonical(path, ec);
    if (ec || resolved == resolved.root_path()) continue;
    if (std::find(out.begin(), out.end(), resolved) == out.end()) out.push_back(resolved);
  }
  return out;
}

bool inside(const fs::path& path, const fs::path& root) {
  auto const [root_end, path_end] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return root_end == root.end();
}

/// Roots (hidden or scratch) that no other root contains: a nested one is hidden already.
std::vector<std::pair<fs::path, mount_op_kind>> outermost(std::vector<std::pair<fs::path, mount_op_kind>> roots) {
  std::sort(roots.begin(), roots.end(),
            [](auto const& a, auto const& b) { return a.first.string().size() < b.first.string().size(); });
  std::vector<std::pair<fs::path, mount_op_kind>> kept;
  for (auto const& root : roots) {
    bool const covered = std::any_of(kept.begin(), kept.end(), [&](auto const& k) { return inside(root.first, k.first); });
    if (!covered) kept.push_back(root);
  }
  return kept;
}

/// Mount points for target inside root's tmpfs, then the bind of target itself (its source was
/// opened in open_ops, before the hiding).
void add_bind(isolation_plan& plan, std::vector<mount_op>& open_ops, const fs::path& root, const fs::path& target,
              bool read_only) {
  int const slot = static_cast<int>(plan.slots.size());
  plan.slots.push_back(-1);
  open_ops.push_back({mount_op_kind::open_source, target.string(), slot, {}});
  fs::path step = root;
  fs::path const rel = target.lexically_relative(root);
  for (auto component = rel.begin(); component != rel.end(); ++component) {
    if (*component == "." || component->empty()) continue;
    step /= *component;
    bool const file = std::next(component) == rel.end() && !fs::is_directory(target);
    plan.ops.push_back({file ? mount_op_kind::make_file : mount_op_kind::make_folder, step.string(), -1, {}});
  }
  plan.ops.push_back({mount_op_kind::bind, target.string(), slot, std::string(40, '\0')});
  if (read_only) plan.ops.push_back({mount_op_kind::read_only, target.string(), -1, {}});
}

void plan_mounts(isolation_plan& plan, const isolation& wanted) {
  std::vector<std::pair<fs::path, mount_op_kind>> roots;
  for (auto const& path : existing(wanted.scratch_paths)) roots.emplace_back(path, mount_op_kind::scratch_folder);
  for (auto const& path : existing(wanted.hidden_paths))
    roots.emplace_back(path, fs::is_directory(path) ? mount_op_kind::hide_folder : mount_op_kind::hide_file);
  roots = outermost(std::move(roots));
  std::string const scratch_options =
      "mode=1777" + (wanted.scratch_max_bytes > 0 ? ",size=" + std::to_string(wanted.scratch_max_bytes) : std::string());
  for (auto const& [path, kind] : roots)
    plan.ops.push_back({kind, path.string(), -1, kind == mount_op_kind::scratch_folder ? scratch_options : std::string()});
  std::vector<std::pair<fs::path, bool>> binds; // path, read-only
  for (auto const& path : existing(wanted.writable_paths)) binds.emplace_back(path, false);
  for (auto const& path : existing(wanted.exposed_paths)) binds.emplace_back(path, true);
  std::sort(binds.begin(), binds.end(),
            [](auto const& a, auto const& b) { return a.first.string().size() < b.first.string().size(); });
  std::vector<mount_op> open_ops{{mount_op_kind::make_private, "/", -1, {}}, {mount_op_kind::fresh_proc, "/proc", -1, {}}};
  for (auto const& [path, read_only] : binds) {
    auto const root = std::find_if(roots.begin(), roots.end(), [&](auto const& r) { return inside(path, r.first); });
    if (root != roots.end() && root->second != mount_op_kind::hide_file) add_bind(plan, open_ops, root->first, path, read_only);
  }
  for (auto const& [path, kind] : roots)
    if (kind != mount_op_kind::scratch_folder) plan.ops.push_back({mount_op_kind::read_only, path.string(), -1, {}});
  plan.ops.insert(plan.ops.begin(), open_ops.begin(), open_ops.end());
}

// ---- child side: async-signal-safe calls only ----

/// "/proc/self/fd/<fd>" into room sized by the parent, without allocating.
void format_fd_path(std::string& room, int fd) {
  char digits[16];
  int count = 0;
  do {
    digits[count++] = static_cast<char>('0' + fd % 10);
    fd /= 10;
  } while (fd > 0 && count < 16);
  std::size_t pos = 0;
  for (char const* prefix = "/proc/self/fd/"; *prefix != '\0'; ++prefix) room[pos++] = *prefix;
  while (count > 0) room[pos++] = digits[--count];
  room[pos] = '\0';
}

int run_op(isolation_plan& plan, mount_op& op) {
  char const* target = op.target.c_str();
  switch (op.kind) {
  case mount_op_kind::make_private:
    return ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr);
  case mount_op_kind::hide_folder:
    return ::mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=1m");
  case mount_op_kind::hide_file:
    return ::mount("/dev/null", target, nullptr, MS_BIND, nullptr);
  case mount_op_kind::scratch_folder:
    return ::mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, op.source.c_str());
  case mount_op_kind::fresh_proc:
    if (!plan.pid_ns) return 0;
    return ::mount("proc", target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr);
  case mount_op_kind::make_folder:
    if (::mkdir(target, 0755) != 0) return errno == EEXIST ? 0 : -1;
    return ::chmod(target, 0755); // whatever the umask
  case mount_op_kind::make_file: {
    int const fd = ::open(target, O_CREAT | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0644);
    return fd < 0 ? -1 : ::close(fd);
  }
  case mount_op_kind::open_source: {
    int const fd = ::open(target, O_PATH | O_CLOEXEC);
    plan.slots[static_cast<std::size_t>(op.slot)] = fd;
    return fd < 0 ? -1 : 0;
  }
  case mount_op_kind::bind:
    format_fd_path(op.source, plan.slots[static_cast<std::size_t>(op.slot)]);
    return ::mount(op.source.c_str(), target, nullptr, MS_BIND | MS_REC, nullptr);
  case mount_op_kind::read_only:
    return ::mount(nullptr, target, nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr);
  }
  errno = EINVAL;
  return -1;
}

bool may_degrade(int error_number) { return error_number == EPERM || error_number == EINVAL || error_number == ENOSYS; }

/// Raw system calls: glibc's setxid wrappers signal every thread, and the child has one.
void child_switch_user(const isolation_plan& plan, int report_fd) {
  if (::syscall(SYS_setgroups, 0, nullptr) != 0) {
    if (errno != EPERM) child_fail(report_fd, child_step::setgroups, errno);
    child_note(report_fd, child_step::setgroups, errno);
    return;
  }
  if (::syscall(SYS_setresgid, plan.gid, plan.gid, plan.gid) != 0) child_fail(report_fd, child_step::setgid, errno);
  if (::syscall(SYS_setresuid, plan.uid, plan.uid, plan.uid) != 0) child_fail(report_fd, child_step::setuid, errno);
}

} // namespace

isolation_plan make_isolation_plan(const isolation& wanted) {
  isolation_plan plan;
  if (!wanted.enabled) return plan;
  if (::geteuid() != 0) {
    plan.parent_note =
        "arbiter runs as uid " + std::to_string(::geteuid()) + ", not root: no user switch, no private network or file view";
    return plan;
  }
  plan.active = true;
  plan.uid = wanted.uid;
  plan.gid = wanted.gid;
  if (wanted.new_net_ns) plan.unshare_flags |= CLONE_NEWNET;
  if (wanted.new_mount_ns) {
    plan.unshare_flags |= CLONE_NEWNS;
    plan_mounts(plan, wanted);
  }
  plan.fallback_flags = plan.unshare_flags;
  if (wanted.new_pid_ns) plan.unshare_flags |= CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS;
  if (wanted.seccomp && candidate_seccomp().available()) plan.seccomp = &candidate_seccomp();
  return plan;
}

void child_unshare(isolation_plan& plan, int report_fd) {
  if (plan.unshare_flags == 0) return;
  if (::unshare(plan.unshare_flags) == 0) {
    plan.pid_ns = (plan.unshare_flags & CLONE_NEWPID) != 0;
    plan.mount_ns = (plan.unshare_flags & CLONE_NEWNS) != 0;
    return;
  }
  if (!may_degrade(errno)) child_fail(report_fd, child_step::unshare, errno);
  if (plan.fallback_flags != plan.unshare_flags) {
    child_note(report_fd, child_step::unshare_pid, errno);
    if (plan.fallback_flags == 0) return;
    if (::unshare(plan.fallback_flags) == 0) {
      plan.mount_ns = (plan.fallback_flags & CLONE_NEWNS) != 0;
      return;
    }
    if (!may_degrade(errno)) child_fail(report_fd, child_step::unshare, errno);
  }
  child_note(report_fd, child_step::unshare, errno);
}

void child_isolate(isolation_plan& plan, int report_fd) {
  if (plan.mount_ns) {
    for (std::size_t op_idx = 0; op_idx < plan.ops.size(); ++op_idx) {
      if (run_op(plan, plan.ops[op_idx]) == 0) continue;
      // A masked /proc (a container's) refuses a fresh one: the host's list stays, said so.
      if (plan.ops[op_idx].kind == mount_op_kind::fresh_proc && (errno == EPERM || errno == EACCES || errno == EBUSY)) {
        child_note(report_fd, child_step::proc_mount, errno);
        continue;
      }
      child_fail(report_fd, child_step::mount, errno, static_cast<int>(op_idx));
    }
  }
  child_switch_user(plan, report_fd);
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) child_fail(report_fd, child_step::no_new_privs, errno);
  if (plan.seccomp != nullptr && child_load_seccomp(*plan.seccomp) != 0) child_note(report_fd, child_step::seccomp, errno);
}

std::string describe_op(const mount_op& op) {
  switch (op.kind) {
  case mount_op_kind::make_private:
    return "making every mount private";
  case mount_op_kind::hide_folder:
    return "hiding folder " + op.target + " under an empty tmpfs";
  case mount_op_kind::hide_file:
    return "hiding file " + op.target + " under /dev/null";
  case mount_op_kind::scratch_folder:
    return "a private tmpfs on " + op.target;
  case mount_op_kind::make_folder:
    return "mount point folder " + op.target;
  case mount_op_kind::make_file:
    return "mount point file " + op.target;
  case mount_op_kind::open_source:
    return "opening " + op.target + " to bind it back";
  case mount_op_kind::bind:
    return "binding " + op.target + " back";
  case mount_op_kind::read_only:
    return "remounting " + op.target + " read-only";
  case mount_op_kind::fresh_proc:
    return "a fresh /proc";
  }
  return "unknown mount step";
}

} // namespace arbiter::sandbox::detail
