#include "detail/cgroup.hpp"

#include "detail/proc_files.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string_view>
#include <thread>

namespace arbiter::sandbox::detail {
namespace {

/// The quota's period (v2 cpu.max, v1 cpu.cfs_period_us): the kernel's default.
constexpr long long k_cpu_period_us = 100000;

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

std::vector<wanted_limit> wanted_limits(const cgroup_limits& limits) {
  std::vector<wanted_limit> wanted;
  if (!limits.cpus.empty()) wanted.push_back({"cpuset", "cpuset.cpus", limits.cpus});
  if (limits.cpu_max_cores > 0)
    wanted.push_back(
        {"cpu", "cpu.max",
         std::to_string(std::llround(limits.cpu_max_cores * k_cpu_period_us)) + " " + std::to_string(k_cpu_period_us)});
  if (limits.memory_max > 0) wanted.push_back({"memory", "memory.max", std::to_string(limits.memory_max)});
  if (limits.pids_max > 0) wanted.push_back({"pids", "pids.max", std::to_string(limits.pids_max)});
  return wanted;
}

/// The same limit in its v1 hierarchy's files, in the order they must be written (a cpuset takes
/// no process before it has cpus and mems; the quota's period before the quota); empty where v1
/// has no form of it here.
v1_settings v1_form(const std::string& controller, const cgroup_limits& limits, const std::string& parent) {
  if (controller == "cpu")
    return {{"cpu.cfs_period_us", std::to_string(k_cpu_period_us)},
            {"cpu.cfs_quota_us", std::to_string(std::llround(limits.cpu_max_cores * k_cpu_period_us))}};
  if (controller == "cpuset") return {{"cpuset.cpus", limits.cpus}, {"cpuset.mems", cgroup_read(parent + "/cpuset.mems")}};
  if (controller == "pids") return {{"pids.max", std::to_string(limits.pids_max)}};
  return {};
}

std::string unique_name() {
  static std::atomic<unsigned> counter{0};
  return "arbiter-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

/// Removes a folder whose last process may still be leaving it.
void remove_folder(const std::string& path) {
  using namespace std::chrono;
  for (int attempt = 0; attempt < 100 && ::rmdir(path.c_str()) != 0 && errno == EBUSY; ++attempt)
    std::this_thread::sleep_for(milliseconds(10));
}

} // namespace

std::string cgroup_read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

int cgroup_write(const std::string& path, const std::string& text) {
  int const fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  ssize_t const written = ::write(fd, text.data(), text.size());
  int const error = written == static_cast<ssize_t>(text.size()) ? 0 : (written < 0 ? errno : EIO);
  ::close(fd);
  return error;
}

std::string own_cgroup_folder(const std::string& mount_point, const std::string& mount_root, std::string own, std::string& why) {
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
  return own_cgroup_folder(mount_point, mount_root, own, why);
}

evaluation_cgroup::evaluation_cgroup(evaluation_cgroup&& other) noexcept
    : m_path(std::move(other.m_path)), m_procs(std::move(other.m_procs)), m_v1(std::move(other.m_v1)),
      m_controllers(std::move(other.m_controllers)), m_limits(other.m_limits) {
  other.m_path.clear();
  other.m_v1.clear();
}

evaluation_cgroup& evaluation_cgroup::operator=(evaluation_cgroup&& other) noexcept {
  if (this != &other) {
    finish();
    m_path = std::move(other.m_path);
    m_procs = std::move(other.m_procs);
    m_v1 = std::move(other.m_v1);
    m_controllers = std::move(other.m_controllers);
    m_limits = other.m_limits;
    other.m_path.clear();
    other.m_v1.clear();
  }
  return *this;
}

evaluation_cgroup::~evaluation_cgroup() { finish(); }

evaluation_cgroup evaluation_cgroup::create(const cgroup_limits& limits, std::vector<std::string>& missing) {
  evaluation_cgroup group;
  group.m_limits = limits;
  std::string why;
  std::string const parent = cgroup_parent(why);
  std::vector<wanted_limit> const wanted = wanted_limits(limits);
  std::vector<wanted_limit> for_v1; // the limits whose controller this host's cgroup v2 lacks
  if (parent.empty()) {
    missing.push_back("cgroup: " + why + "; survivors are still killed with the PID namespace");
    for_v1 = wanted;
  } else if (!group.create_v2(parent, missing)) {
    return group;
  } else {
    std::string const available = cgroup_read(parent + "/cgroup.controllers");
    for (auto const& limit : wanted) {
      if (has_word(available, limit.controller) || has_word(cgroup_read(parent + "/cgroup.subtree_control"), limit.controller))
        group.set_v2(parent, limit, missing);
      else for_v1.push_back(limit);
    }
  }
  for (auto const& limit : for_v1) {
    std::string v1_why;
    std::string const v1_parent = cgroup_v1_parent(limit.controller, v1_why);
    v1_settings const settings = v1_parent.empty() ? v1_settings{} : v1_form(limit.controller, limits, v1_parent);
    if (settings.empty()) {
      missing.push_back(std::string("cgroup: controller ") + limit.controller + " not available to " +
                        (parent.empty() ? "a cgroup v2" : parent) + " nor in cgroup v1 (" +
                        (v1_why.empty() ? "no v1 form here" : v1_why) + "; " + limit.file + " not set)");
      continue;
    }
    if (group.add_v1(limit.controller, v1_parent, settings, missing))
      group.m_controllers.push_back(std::string(limit.controller) + " v1");
  }
  return group;
}

bool evaluation_cgroup::create_v2(const std::string& parent, std::vector<std::string>& missing) {
  std::string const path = parent + "/" + unique_name();
  if (::mkdir(path.c_str(), 0755) != 0) {
    missing.push_back("cgroup: cannot create " + path + " (" + std::strerror(errno) + ")");
    return false;
  }
  m_path = path;
  m_procs = unique_fd(::open((path + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC));
  if (!m_procs.valid()) {
    missing.push_back("cgroup: cannot open " + path + "/cgroup.procs (" + std::strerror(errno) + ")");
    finish();
    return false;
  }
  return true;
}

void evaluation_cgroup::set_v2(const std::string& parent, const wanted_limit& limit, std::vector<std::string>& missing) {
  if (!has_word(cgroup_read(parent + "/cgroup.subtree_control"), limit.controller)) {
    if (int const error = cgroup_write(parent + "/cgroup.subtree_control", std::string("+") + limit.controller); error != 0) {
      missing.push_back(std::string("cgroup: cannot enable ") + limit.controller + " below " + parent + " (" +
                        std::strerror(error) + "; " + limit.file + " not set)");
      return;
    }
  }
  if (limit.controller == std::string("cpuset"))
    cgroup_write(m_path + "/cpuset.mems", cgroup_read(parent + "/cpuset.mems.effective"));
  if (int const error = cgroup_write(m_path + "/" + limit.file, limit.value); error != 0) {
    missing.push_back(std::string("cgroup: writing ") + limit.file + " = " + limit.value + ": " + std::strerror(error));
    return;
  }
  m_controllers.push_back(limit.controller);
}

bool evaluation_cgroup::add_v1(const std::string& controller, const std::string& parent, const v1_settings& settings,
                               std::vector<std::string>& missing) {
  std::string const path = parent + "/" + unique_name();
  if (::mkdir(path.c_str(), 0755) != 0) {
    missing.push_back("cgroup: cannot create " + path + " (" + std::strerror(errno) + ")");
    return false;
  }
  for (auto const& [file, value] : settings) {
    if (int const error = cgroup_write(path + "/" + file, value); error != 0) {
      missing.push_back("cgroup: writing " + path + "/" + file + " = " + value + ": " + std::strerror(error));
      remove_folder(path);
      return false;
    }
  }
  unique_fd procs(::open((path + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC));
  if (!procs.valid()) {
    missing.push_back("cgroup: cannot open " + path + "/cgroup.procs (" + std::strerror(errno) + ")");
    remove_folder(path);
    return false;
  }
  m_v1.push_back({controller, path, std::move(procs)});
  return true;
}

cgroup_procs_fds evaluation_cgroup::procs_fds() const {
  cgroup_procs_fds fds;
  fds.fill(-1);
  std::size_t next = 0;
  if (m_procs.valid()) fds[next++] = m_procs.get();
  for (auto const& each : m_v1)
    if (next < fds.size()) fds[next++] = each.procs.get();
  return fds;
}

std::string evaluation_cgroup::procs_file() const {
  if (!m_path.empty()) return m_path + "/cgroup.procs";
  return m_v1.empty() ? std::string() : m_v1.front().path + "/cgroup.procs";
}

std::vector<pid_t> evaluation_cgroup::members() const {
  const std::string file = procs_file();
  return file.empty() ? std::vector<pid_t>{} : read_pids(file);
}

std::string evaluation_cgroup::folder(const std::string& controller) const {
  for (auto const& each : m_v1)
    if (each.controller == controller) return each.path;
  return m_path;
}

std::function<std::optional<double>()> evaluation_cgroup::cpu_clock_ms() const {
  if (m_path.empty()) return {};
  auto const stat = std::make_shared<unique_fd>(::open((m_path + "/cpu.stat").c_str(), O_RDONLY | O_CLOEXEC));
  if (!stat->valid()) return {};
  return [stat]() -> std::optional<double> {
    std::array<char, 1024> text{};
    ssize_t const got = ::pread(stat->get(), text.data(), text.size() - 1, 0); // a seq file: read anew from 0
    if (got <= 0) return std::nullopt;
    std::istringstream lines(std::string(text.data(), static_cast<std::size_t>(got)));
    std::string name;
    for (std::uint64_t value = 0; lines >> name >> value;)
      if (name == "usage_usec") return static_cast<double>(value) / 1000.0;
    return std::nullopt;
  };
}

std::function<bool(bool)> evaluation_cgroup::freezer() const {
  if (m_path.empty()) return {};
  auto const freeze = std::make_shared<unique_fd>(::open((m_path + "/cgroup.freeze").c_str(), O_WRONLY | O_CLOEXEC));
  auto const events = std::make_shared<unique_fd>(::open((m_path + "/cgroup.events").c_str(), O_RDONLY | O_CLOEXEC));
  if (!freeze->valid() || !events->valid()) return {};
  return [freeze, events](bool frozen) {
    char const wanted = frozen ? '1' : '0';
    if (::pwrite(freeze->get(), &wanted, 1, 0) != 1) return false;
    std::string const line = std::string("frozen ") + wanted;
    for (int tick = 0; tick < 2000; ++tick) { // cgroup.events changes when the state does; a tick of 1 ms
      std::array<char, 256> text{};
      ssize_t const got = ::pread(events->get(), text.data(), text.size() - 1, 0);
      if (got > 0 && std::string_view(text.data(), static_cast<std::size_t>(got)).find(line) != std::string_view::npos)
        return true;
      pollfd changed{events->get(), POLLPRI, 0};
      ::poll(&changed, 1, 1);
    }
    return false;
  };
}

void evaluation_cgroup::kill_all() {
  using namespace std::chrono;
  auto const deadline = steady_clock::now() + seconds(2);
  // cgroup.kill (v2, kernels from 5.14) takes the whole group at once; else one by one, in every
  // folder: a v1 folder holds the same processes where the v2 one could not be had.
  bool const killed_whole = !m_path.empty() && cgroup_write(m_path + "/cgroup.kill", "1") == 0;
  std::vector<std::string> folders;
  if (!m_path.empty()) folders.push_back(m_path);
  for (auto const& each : m_v1) folders.push_back(each.path);
  while (steady_clock::now() < deadline) {
    bool empty = true;
    for (auto const& each : folders) {
      auto const pids = read_pids(each + "/cgroup.procs");
      empty = empty && pids.empty();
      if (!killed_whole)
        for (pid_t const pid : pids) ::kill(pid, SIGKILL);
    }
    if (empty) break;
    std::this_thread::sleep_for(milliseconds(5));
  }
}

std::string evaluation_cgroup::finish() {
  if (m_path.empty() && m_v1.empty()) return {};
  m_procs.reset();
  for (auto& each : m_v1) each.procs.reset();
  kill_all();
  std::string reached;
  auto const add = [&](const std::string& line) { reached += (reached.empty() ? "" : "; ") + line; };
  if (std::uint64_t const oom = keyed_value(cgroup_read(folder("memory") + "/memory.events"), "oom_kill"); oom > 0)
    add("memory cap of " + human_bytes(m_limits.memory_max) + " reached: " + std::to_string(oom) + " process" +
        (oom == 1 ? "" : "es") + " killed");
  if (std::uint64_t const refused = keyed_value(cgroup_read(folder("pids") + "/pids.events"), "max"); refused > 0)
    add("process cap of " + std::to_string(m_limits.pids_max) + " reached: " + std::to_string(refused) + " fork" +
        (refused == 1 ? "" : "s") + " refused");
  for (auto const& each : m_v1) remove_folder(each.path);
  if (!m_path.empty()) remove_folder(m_path);
  m_path.clear();
  m_v1.clear();
  return reached;
}

} // namespace arbiter::sandbox::detail
