#pragma once
/// One evaluation's cgroup (direct cgroupfs): created before the fork under arbiter's own cgroup,
/// the child moves itself in before exec (it writes "0" to each folder's cgroup.procs), and at the
/// end every process still in it is killed (cgroup.kill), the limits it hit are read back and the
/// folders removed. The cgroup v2 holds the evaluation and the limits whose controllers it has; on
/// a hybrid host (a cgroup2 without controllers beside the v1 hierarchies) a limit its v2 lacks is
/// written in a folder of its own in the v1 hierarchy of that controller (cpu, cpuset, pids).
/// Where the host forbids any of it the evaluation runs without, and the notes say so. Private to
/// the sandbox.
#include "detail/unique_fd.hpp"

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace arbiter::sandbox::detail {

struct cgroup_limits {
  std::string cpus;             ///< cpuset.cpus; empty = leave
  double cpu_max_cores = 0;     ///< cpu.max quota in cores; 0 = leave
  std::uint64_t memory_max = 0; ///< memory.max; 0 = leave
  std::uint64_t pids_max = 0;   ///< pids.max; 0 = leave
};

/// The cgroup v2 folder new evaluation cgroups go under: arbiter's own cgroup on the first
/// cgroup2 mount (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid host); empty with `why`
/// when there is none.
std::string cgroup_parent(std::string& why);

/// The cgroup v1 folder new evaluation folders of `controller` go under: arbiter's own cgroup in
/// the v1 hierarchy mounted with that controller (/sys/fs/cgroup/cpu, or .../cpu,cpuacct where
/// two share one); empty with `why` when no writable one is mounted.
std::string cgroup_v1_parent(const std::string& controller, std::string& why);

/// The controllers an evaluation's limits may take from a v1 hierarchy where the v2 lacks them.
inline constexpr std::array<const char*, 3> k_v1_controllers{"cpu", "cpuset", "pids"};

/// At most one v2 folder and one v1 folder per controller of k_v1_controllers.
inline constexpr std::size_t k_max_cgroup_folders = 1 + k_v1_controllers.size();
/// Each folder's cgroup.procs opened for writing, close-on-exec, v2 first; -1 where none.
using cgroup_procs_fds = std::array<int, k_max_cgroup_folders>;

/// One limit as the cgroup v2 takes it.
struct wanted_limit {
  const char* controller;
  const char* file;
  std::string value;
};

/// A limit in a v1 hierarchy's files: {file, value}, in the order they are written.
using v1_settings = std::vector<std::pair<std::string, std::string>>;

class evaluation_cgroup {
 public:
  evaluation_cgroup() = default;
  evaluation_cgroup(const evaluation_cgroup&) = delete;
  evaluation_cgroup& operator=(const evaluation_cgroup&) = delete;
  evaluation_cgroup(evaluation_cgroup&&) noexcept;
  evaluation_cgroup& operator=(evaluation_cgroup&&) noexcept;
  /// Kills and removes what is left (finish() not called).
  ~evaluation_cgroup();

  /// A new cgroup with the limits that can be had; what cannot goes into `missing`, one line each.
  /// An invalid cgroup (nothing created) when the host has neither a writable cgroup v2 nor a v1
  /// hierarchy for a limit asked for.
  static evaluation_cgroup create(const cgroup_limits& limits, std::vector<std::string>& missing);

  bool valid() const { return m_procs.valid() || !m_v1.empty(); }
  /// The descriptors the child writes "0" to, one per folder, to move itself in.
  cgroup_procs_fds procs_fds() const;
  /// The controllers whose limits were written ("pids", "memory", ...); "cpu v1" for one written
  /// in its v1 hierarchy.
  const std::vector<std::string>& controllers() const { return m_controllers; }
  /// The v2 folder; empty where the evaluation has only v1 folders.
  const std::string& path() const { return m_path; }
  /// The kernel's account of the CPU time the group's processes have used, in ms (cpu.stat's
  /// usage_usec, kept by every cgroup v2 with or without the cpu controller), as a reader that
  /// holds the file open: safe from another thread, nullopt once the group is gone. Empty when
  /// the group has no cpu.stat.
  std::function<std::optional<double>()> cpu_clock_ms() const;
  /// Freezes (true) or thaws (false) every process of the group through its v2 cgroup.freeze and
  /// waits (up to ~2 s) until cgroup.events says it took effect; holds both files open, so it is
  /// safe from another thread. Empty when the group has no v2 folder with cgroup.freeze.
  std::function<bool(bool)> freezer() const;
  /// The folder the limit of `controller` is written in: its v1 folder where it has one, else the
  /// v2 folder (empty when there is none).
  std::string folder(const std::string& controller) const;
  /// The processes in the evaluation now: its v2 cgroup.procs, else its first v1 folder's.
  std::vector<pid_t> members() const;
  /// The cgroup.procs file members() reads; empty when the group has no folder.
  std::string procs_file() const;

  /// Kills every process in the cgroup, waits (up to ~2 s) for it to empty, removes it. Returns the
  /// caps that were reached, one line ("memory cap of 1.0 GiB reached: 1 process killed"), or empty.
  std::string finish();

 private:
  struct v1_folder {
    std::string controller, path;
    unique_fd procs;
  };
  /// The v2 folder under `parent` and its cgroup.procs; false with a line in `missing`.
  bool create_v2(const std::string& parent, std::vector<std::string>& missing);
  /// One limit in the v2 folder, its controller enabled below `parent` first.
  void set_v2(const std::string& parent, const wanted_limit& limit, std::vector<std::string>& missing);
  /// A folder for `controller` under its v1 `parent` with `settings` written; false with a line in
  /// `missing` when it cannot be had.
  bool add_v1(const std::string& controller, const std::string& parent, const v1_settings& settings,
              std::vector<std::string>& missing);
  void kill_all();

  std::string m_path;
  unique_fd m_procs;
  std::vector<v1_folder> m_v1;
  std::vector<std::string> m_controllers;
  cgroup_limits m_limits;
};

/// A cgroup file's whole text; empty when it cannot be read.
std::string cgroup_read(const std::string& path);
/// Writes `text` to a cgroup file in one write: 0, or the errno of the failed open or write.
int cgroup_write(const std::string& path, const std::string& text);

/// The folder for a cgroup mounted at `mount_point` (its root `mount_root` in the hierarchy) that
/// holds arbiter's own cgroup `own` ("/a/b"): that folder when it exists, else the mount point;
/// empty with `why` when it is not writable.
std::string own_cgroup_folder(const std::string& mount_point, const std::string& mount_root, std::string own, std::string& why);

/// "1.5 GiB", "300.0 MiB", "12 bytes".
std::string human_bytes(std::uint64_t bytes);

} // namespace arbiter::sandbox::detail
