#pragma once
/// One evaluation's cgroup v2 (direct cgroupfs): created before the fork under arbiter's own
/// cgroup, the child moves itself in before exec (it writes "0" to cgroup.procs), and at the end
/// every process still in it is killed (cgroup.kill), the limits it hit are read back and the
/// folder removed. Where the host forbids any of it the evaluation runs without, and the notes say
/// so. Private to the sandbox.
#include "detail/unique_fd.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace arbiter::sandbox::detail {

struct cgroup_limits {
  std::string cpus;                ///< cpuset.cpus; empty = leave
  double cpu_max_cores = 0;        ///< cpu.max quota in cores; 0 = leave
  std::uint64_t memory_max = 0;    ///< memory.max; 0 = leave
  std::uint64_t pids_max = 0;      ///< pids.max; 0 = leave
};

/// The cgroup v2 folder new evaluation cgroups go under: arbiter's own cgroup on the first
/// cgroup2 mount (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid host); empty with `why`
/// when there is none.
std::string cgroup_parent(std::string& why);

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
  /// An invalid cgroup (nothing created) when the host has no writable cgroup v2.
  static evaluation_cgroup create(const cgroup_limits& limits, std::vector<std::string>& missing);

  bool valid() const { return m_procs.valid(); }
  /// cgroup.procs opened for writing, close-on-exec: the child writes "0" to it to move itself in.
  int procs_fd() const { return m_procs.get(); }
  /// The controllers whose limits were written ("pids", "memory", ...).
  const std::vector<std::string>& controllers() const { return m_controllers; }
  const std::string& path() const { return m_path; }

  /// Kills every process in the cgroup, waits (up to ~2 s) for it to empty, removes it. Returns the
  /// caps that were reached, one line ("memory cap of 1.0 GiB reached: 1 process killed"), or empty.
  std::string finish();

private:
  std::string m_path;
  unique_fd m_procs;
  std::vector<std::string> m_controllers;
  cgroup_limits m_limits;
};

/// "1.5 GiB", "300.0 MiB", "12 bytes".
std::string human_bytes(std::uint64_t bytes);

} // namespace arbiter::sandbox::detail
