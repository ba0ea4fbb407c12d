#include "detail/cgroup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace arbiter::sandbox::detail {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// 0, or the errno of a failed open/write.
int write_text(const std::string& path, const std::string& text) {
  int const fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  ssize_t const written = ::write(fd, text.data(), text.size());
  int const error = written == static_cast<ssize_t>(text.size()) ? 0 : (written < 0 ? errno : EIO);
  ::close(fd);
  return error;
}

bool has_word(const std::string& list, const std::string& word) {
  std::istringstream words(list);
  for (std::string each; words >> each;)
    if (each == word) return true;
  return false;
}

/// The value after `key` in a "key value" file (memory.events, cgroup.events); 0 when absent.
std::uint64_t keyed_value(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  std::string name;
  std::uint64_t value = 0;
  while (lines >> name >> value)
    if (name == key) return value;
  return 0;
}

} // namespace

std::string human_bytes(std::uint64_t bytes) {
  char text[64];
  if (bytes >= (1ull << 30)) std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / double(1ull << 30));
  else if (bytes >= (1ull << 20)) std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(1ull << 20));
  else std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  return text;
}

std::string cgroup_parent(std::string& why) {
  // The cgroup2 mount: /sys/fs/cgroup on a unified host, .../unified on a hybrid one.
  std::ifstream mounts("/proc/self/mountinfo");
  std::string line, mount_point, mount_root;
  while (std::getline(mounts, line)) {
    auto const dash = line.find(" - cgroup2 ");
    if (dash == std::string::npos) continue;
    std::istringstream fields(line);
    std::string id, parent, devices, root, point;
    fields >> id >> parent >> devices >> root >> point;
    if (mount_point.empty() || point == "/sys/fs/cgroup") {
      mount_point = point;
      mount_root = root;
    }
  }
  if (mount_point.empty()) {
    why = "no cgroup v2 is mounted";
    return {};
  }
  std::string own; // "0::/path" in /proc/self/cgroup
  std::ifstream cgroups("/proc/self/cgroup");
  while (std::getline(cgroups, line))
    if (line.rfind("0::", 0) == 0) own = line.substr(3);
  if (own.rfind(mount_root, 0) == 0 && mount_root != "/") own = own.substr(mount_root.size());
  std::string parent = mount_point + (own == "/" ? "" : own);
  struct stat info {};
  if (own.empty() || ::stat(parent.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) parent = mount_point;
  if (::access(parent.c_str(), W_OK) != 0) {
    why = parent + " is not writable (" + std::strerror(errno) + ")";
    return {};
  }
  return parent;
}

evaluation_cgroup::evaluation_cgroup(evaluation_cgroup&& other) noexcept
    : m_path(std::move(other.m_path)), m_procs(std::move(other.m_procs)), m_controllers(std::move(other.m_controllers)),
      m_limits(other.m_limits) {
  other.m_path.clear();
}

evaluation_cgroup& evaluation_cgroup::operator=(evaluation_cgroup&& other) noexcept {
  if (this != &other) {
    if (!m_path.empty()) finish();
    m_path = std::move(other.m_path);
    m_procs = std::move(other.m_procs);
    m_controllers = std::move(other.m_controllers);
    m_limits = other.m_limits;
    other.m_path.clear();
  }
  return *this;
}

evaluation_cgroup::~evaluation_cgroup() {
  if (!m_path.empty()) finish();
}

evaluation_cgroup evaluation_cgroup::create(const cgroup_limits& limits, std::vector<std::string>& missing) {
  evaluation_cgroup group;
  std::string why;
  std::string const parent = cgroup_parent(why);
  if (parent.empty()) {
    missing.push_back("cgroup: " + why + "; survivors are still killed with the PID namespace");
    return group;
  }
  static std::atomic<unsigned> counter{0};
  std::string const path = parent + "/arbiter-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  if (::mkdir(path.c_str(), 0755) != 0) {
    missing.push_back("cgroup: cannot create " + path + " (" + std::strerror(errno) + ")");
    return group;
  }
  group.m_path = path;
  group.m_limits = limits;
  group.m_procs = unique_fd(::open((path + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC));
  if (!group.m_procs.valid()) {
    missing.push_back("cgroup: cannot open " + path + "/cgroup.procs (" + std::strerror(errno) + ")");
    group.finish();
    return group;
  }
  struct wanted_limit {
    const char* controller;
    const char* file;
    std::string value;
  };
  std::vector<wanted_limit> wanted;
  if (!limits.cpus.empty()) wanted.push_back({"cpuset", "cpuset.cpus", limits.cpus});
  if (limits.cpu_max_cores > 0)
    wanted.push_back({"cpu", "cpu.max", std::to_string(std::llround(limits.cpu_max_cores * 100000)) + " 100000"});
  if (limits.memory_max > 0) wanted.push_back({"memory", "memory.max", std::to_string(limits.memory_max)});
  if (limits.pids_max > 0) wanted.push_back({"pids", "pids.max", std::to_string(limits.pids_max)});
  std::string const available = read_text(parent + "/cgroup.controllers");
  for (auto const& limit : wanted) {
    if (!has_word(read_text(parent + "/cgroup.subtree_control"), limit.controller)) {
      if (!has_word(available, limit.controller)) {
        missing.push_back(std::string("cgroup: controller ") + limit.controller + " not available to " + parent + " (" +
                          limit.file + " not set)");
        continue;
      }
      if (int const error = write_text(parent + "/cgroup.subtree_control", std::string("+") + limit.controller); error != 0) {
        missing.push_back(std::string("cgroup: cannot enable ") + limit.controller + " below " + parent + " (" +
                          std::strerror(error) + "; " + limit.file + " not set)");
        continue;
      }
    }
    if (limit.controller == std::string("cpuset")) write_text(path + "/cpuset.mems", read_text(parent + "/cpuset.mems.effective"));
    if (int const error = write_text(path + "/" + limit.file, limit.value); error != 0) {
      missing.push_back(std::string("cgroup: writing ") + limit.file + " = " + limit.value + ": " + std::strerror(error));
      continue;
    }
    group.m_controllers.push_back(limit.controller);
  }
  return group;
}

std::string evaluation_cgroup::finish() {
  if (m_path.empty()) return {};
  m_procs.reset();
  using namespace std::chrono;
  auto const deadline = steady_clock::now() + seconds(2);
  bool const killed_whole = write_text(m_path + "/cgroup.kill", "1") == 0;
  while (steady_clock::now() < deadline) {
    if (keyed_value(read_text(m_path + "/cgroup.events"), "populated") == 0 && read_text(m_path + "/cgroup.procs").empty()) break;
    if (!killed_whole) { // kernels before 5.14: one by one
      std::istringstream pids(read_text(m_path + "/cgroup.procs"));
      for (pid_t pid = 0; pids >> pid;) ::kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(milliseconds(5));
  }
  std::string reached;
  auto const add = [&](const std::string& line) { reached += (reached.empty() ? "" : "; ") + line; };
  if (std::uint64_t const oom = keyed_value(read_text(m_path + "/memory.events"), "oom_kill"); oom > 0)
    add("memory cap of " + human_bytes(m_limits.memory_max) + " reached: " + std::to_string(oom) + " process" +
        (oom == 1 ? "" : "es") + " killed");
  if (std::uint64_t const refused = keyed_value(read_text(m_path + "/pids.events"), "max"); refused > 0)
    add("process cap of " + std::to_string(m_limits.pids_max) + " reached: " + std::to_string(refused) + " fork" +
        (refused == 1 ? "" : "s") + " refused");
  for (int attempt = 0; attempt < 100 && ::rmdir(m_path.c_str()) != 0 && errno == EBUSY; ++attempt)
    std::this_thread::sleep_for(milliseconds(10));
  m_path.clear();
  return reached;
}

} // namespace arbiter::sandbox::detail
