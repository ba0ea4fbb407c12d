#pragma once
/// Runs one untrusted or semi-trusted process: fresh process group, rlimits, wall-clock timeout
/// with kill escalation, stdout+stderr captured together into a log file with a size cap, and
/// optionally a second pipe (the channel, descriptor 3) stored whole in a file of its own.
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace arbiter::sandbox {

struct resource_limits {
  /// RLIMIT_FSIZE: a runaway writer stops here. Above the largest file a suite legitimately needs:
  /// the core suite's MoE expert weights (state.pt) hold 22.5 GB.
  std::uint64_t max_file_bytes = 32ull << 30;
  std::uint64_t max_open_files = 4096;   ///< RLIMIT_NOFILE
  std::uint64_t max_processes = 0;       ///< RLIMIT_NPROC; 0 = leave as is
  std::uint64_t address_space_bytes = 0; ///< RLIMIT_AS; 0 = unlimited (CUDA needs it so)
  std::uint64_t cpu_seconds = 0;         ///< RLIMIT_CPU; 0 = unlimited
};

/// How the isolation is set up. `automatic`: bubblewrap when a working `bwrap` (and `setpriv` for
/// the user switch) is found, else the hand-written engine; the others force one.
enum class isolation_engine : std::uint8_t { automatic, bubblewrap, native };

/// Who the child runs as and what it sees (docs/protocol.md, "Sandbox"). Needs root.
///
/// Engine bubblewrap (an allow-list): the child's root is a fresh tmpfs holding only read-only
/// binds of system_paths, exposed_paths and the CUDA devices present, read-write binds of
/// writable_paths, a size-capped tmpfs on each scratch path, a fresh /proc of its own PID
/// namespace and a minimal /dev; hidden_paths matter only where they lie inside a bound path.
/// Namespaces: PID, network (a down loopback), IPC, UTS, mount. The user switch is
/// setpriv's (setgroups({}), setresgid, setresuid, PR_SET_NO_NEW_PRIVS).
///
/// Engine native (no bubblewrap; a deny-list), in the child between fork and exec:
/// unshare(CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS), then a fork
/// (a small init as PID 1 of the new namespace, the program as PID 2), every mount private, a
/// fresh /proc, a fresh size-capped tmpfs over each scratch path, an empty read-only tmpfs over
/// each hidden folder (/dev/null over a hidden file), the exposed and writable paths that lie
/// under a hidden or scratch path bound back (exposed ones read-only), then setgroups({}) +
/// setresgid + setresuid and PR_SET_NO_NEW_PRIVS; cwd is entered afterwards, as the sandbox user.
///
/// Both engines then load the seccomp filter (seccomp.hpp) and, where the host lets arbiter write
/// cgroup v2, start the child in a cgroup of its own (cgroup.hpp) that is killed whole at the end;
/// a limit whose controller the cgroup v2 lacks (a hybrid host) is written in a folder of the
/// controller's v1 hierarchy (cpu, cpuset, pids) that the child joins too.
/// Paths must be absolute; missing hidden, exposed or system paths are left out.
struct isolation {
  bool enabled = false;
  uid_t uid = 65534; ///< nobody
  gid_t gid = 65534; ///< nogroup
  bool new_net_ns = true;
  bool new_mount_ns = true;
  bool new_pid_ns = true; ///< also IPC and UTS: its own process list, every process dies with it
  isolation_engine engine = isolation_engine::automatic;
  std::vector<std::string> hidden_paths;   ///< the grader's files: an empty read-only view
  std::vector<std::string> scratch_paths;  ///< private writable tmpfs (/tmp, /dev/shm): nothing shared
  std::vector<std::string> exposed_paths;  ///< bound back read-only (exchange, runner, runtime)
  std::vector<std::string> writable_paths; ///< bound back read-write (its own eval folder, its cache)
  /// The allow-list root's system part (bubblewrap only), read-only; empty = default_system_paths().
  std::vector<std::string> system_paths;
  std::uint64_t scratch_max_bytes = 512ull << 20; ///< size of each scratch tmpfs; 0 = the memory's
  /// Folders measured once the process has ended (its work folder): past max_work_bytes together,
  /// their largest files are removed until they fit, and process_result::limit_exceeded says so.
  std::vector<std::string> size_capped_paths;
  std::uint64_t max_work_bytes = 0;   ///< 0 = no cap
  bool seccomp = true;                ///< the system call filter (seccomp.hpp)
  bool cgroup = true;                 ///< a cgroup of its own (v2, v1 folders for what v2 lacks) where the host allows one
  std::string cpus;                   ///< cpuset.cpus, e.g. "2" or "0-3"; empty = every core
  double cpu_max_cores = 0;           ///< cpu.max as a number of cores; 0 = no quota
  std::uint64_t memory_max_bytes = 0; ///< memory.max; 0 = no cap
  std::uint64_t pids_max = 0;         ///< pids.max; 0 = no cap
};

/// The read-only system part of bubblewrap's root: the interpreter, its libraries and the toolkit
/// (/usr, /bin, /sbin, /lib*, /etc, /sys) where they exist.
std::vector<std::string> default_system_paths();

/// The descriptor the child writes its channel to when process_spec::channel_path is set.
inline constexpr int channel_fd = 3;
/// The descriptor a process started by process_runner::start reads its gate from: one byte when
/// the gate opens, end of file when it never will.
inline constexpr int gate_fd = 4;

struct process_spec {
  /// argv[0] is looked up on PATH when it has no '/' (execvpe semantics): env's PATH when it has
  /// one, else the parent's.
  std::vector<std::string> argv;
  std::map<std::string, std::string> env; ///< the child's whole environment (nothing inherited)
  std::string cwd;                        ///< empty = the parent's
  double timeout_s = 600;                 ///< wall clock; then SIGTERM to the group, then SIGKILL
  double kill_grace_s = 5;
  resource_limits limits;
  std::string log_path;                     ///< stdout and stderr interleaved; required
  std::uint64_t log_head_bytes = 512 << 10; ///< kept from the start of the output
  std::uint64_t log_tail_bytes = 512 << 10; ///< kept from the end; the middle is elided with a note
  isolation sandbox;                        ///< off by default: the process runs as the parent's user
  /// Where every byte the child writes to descriptor `channel_fd` is stored, in order; the file is
  /// created (truncated) by the parent and owned by it, so the child can write to it only through
  /// the pipe while it lives. Empty: no channel, descriptor 3 is closed in the child.
  std::string channel_path;
  /// Bytes kept in the channel file; past it the rest is dropped and a note line ends the file.
  std::uint64_t channel_max_bytes = 256ull << 20;
};

enum class process_end : std::uint8_t { exited, signaled, timed_out, failed_to_start };

struct process_result {
  process_end end = process_end::failed_to_start;
  int exit_code = -1; ///< exited only
  int signal = 0;     ///< signaled only
  double wall_s = 0;
  std::uint64_t output_bytes = 0; ///< everything the child wrote, before truncation
  bool truncated = false;
  std::uint64_t channel_bytes = 0; ///< everything the child wrote to the channel, before the cap
  bool channel_truncated = false;  ///< the channel passed channel_max_bytes
  std::string error;               ///< failed_to_start: why
  double timeout_s = 0;            ///< timed_out only: the wall-clock limit that was exceeded
  double gated_s = 0;              ///< process_runner::start: seconds from the start until the gate opened
  /// spec.sandbox.enabled and everything in it took effect. False with a note when isolation was
  /// asked for but could not be had (arbiter not root, namespaces refused): the process then ran
  /// with less, never silently.
  bool isolation_applied = false;
  std::string isolation_note; ///< what was left out and why; empty when applied or not asked for
  /// "bubblewrap" or "native" when isolation was asked for and the parent is root; else empty.
  std::string isolation_engine;
  /// Layers that took effect, e.g. "allow-list root", "pid namespace", "seccomp", "cgroup".
  std::vector<std::string> isolation_layers;
  /// Optional layers asked for and done without (seccomp, cgroup, its controllers), with why; the
  /// process ran all the same. Not part of isolation_applied, which covers the view and the user.
  std::string isolation_missing;
  /// A cap the process reached, one line a judge can give as the evaluation's runtime_error reason:
  /// its work folder over max_work_bytes (the excess removed), memory.max (OOM kill), pids.max.
  /// Empty when none was.
  std::string limit_exceeded;
  /// Processes of the evaluation that outlived the runner: alive in its cgroup when the leader
  /// ended, outside the leader's process group (they left it: setsid, a double fork), a PID
  /// namespace's own init excepted. Their command lines, read before they were killed. Empty
  /// without a cgroup.
  std::vector<std::string> survivors;
};

/// One line a person can act on: "exited with status 3", "killed by SIGSEGV (signal 11)",
/// "timed out after 30.0 s (wall clock)", "failed to start: <why>".
std::string describe(const process_result& result);

/// One thread of a started process, read from outside through /proc (native threads included).
struct thread_sample {
  int pid = 0;              ///< host pid of its process
  int tid = 0;              ///< host tid
  std::string name;         ///< its comm (what the thread named itself: cut to 15 bytes, its own word)
  std::uint64_t run_ns = 0; ///< how long it has run on a CPU so far
};

/// What the orchestrator may read and do to a started process from outside while it runs (the
/// outside clock's batches, docs/guard.md); each member is empty where the host gives no way, and
/// each may be called from any thread while the process runs.
struct process_access {
  /// The kernel's account of the CPU time (ms) every process of it has used so far: its cgroup's
  /// cpu.stat, or an unisolated process's CPU clock; nullopt once it is gone.
  std::function<std::optional<double>()> cpu_ms;
  /// Holds every process of it still (true) or lets it go on (false): cgroup.freeze where it has a
  /// v2 cgroup, else SIGSTOP/SIGCONT of each of its processes (its cgroup's members, else the leader
  /// and its descendants). Returns once they are held or let go; false when that failed.
  std::function<bool(bool)> hold;
  /// The host pid of its process whose pid in that process's own PID namespace is ns_pid (the last
  /// NSpid of /proc/<pid>/status), among its cgroup's members, else the leader and its descendants.
  std::function<std::optional<int>(int)> host_pid;
  /// Every thread of every process of it now (its cgroup's members, else the leader and its
  /// descendants), with how long each has run: which thread is busy, seen from outside.
  std::function<std::vector<thread_sample>()> threads;
};

/// A process started ahead of its turn (process_runner::start): it runs until it reads its gate
/// (descriptor gate_fd) and waits there. Nothing of it is supervised until finish().
class started_process {
 public:
  /// A process whose gate never opened is killed with its group and reaped; its log is closed.
  virtual ~started_process() = default;
  /// Opens the gate and returns: the process goes on while the caller does other work. Its output
  /// is read from finish() on (a pipe that fills before then holds the process up). Once; finish()
  /// opens the gate itself when this was not called.
  virtual void open() {}
  /// Opens the gate unless open() did, then supervises the process to its end as
  /// process_runner::run does; the wall-clock limit counts from here. Call once.
  virtual process_result finish() = 0;
  /// Its CPU account, hold and pid lookup, for the outside clock (process_access).
  virtual process_access access() const { return {}; }
};

/// Interface so that the pipeline can be tested without real processes.
class process_runner {
 public:
  virtual ~process_runner() = default;
  virtual process_result run(const process_spec& spec) = 0;
  /// Starts spec's process now, behind a closed gate, so that its start-up (an interpreter's
  /// imports) overlaps other work. The default starts nothing until finish(), which then calls
  /// run(spec): a runner without gates (a test's fake) needs nothing more.
  virtual std::unique_ptr<started_process> start(const process_spec& spec);
};

/// fork/exec implementation. The child leads a new session (its own process group) with
/// RLIMIT_CORE 0 and spec.limits, stdin on /dev/null, stdout+stderr on one pipe and, with a
/// channel_path, the channel's pipe on descriptor 3 (nothing else open across exec). On timeout the
/// whole group gets SIGTERM, then SIGKILL after kill_grace_s; when the leader exits, whatever is
/// left of its group is killed. Without isolation a process that leaves the group (setsid) is out
/// of reach; with it, the PID namespace ends with the leader's group (the kernel kills every
/// process in it) and the evaluation's cgroup, where there is one, is killed whole (cgroup.kill)
/// before run/finish return; what was still alive outside the group is process_result::survivors. Safe to call from several threads at once.
/// With spec.sandbox.enabled the child is isolated as `isolation` says; a mount that fails after
/// the namespaces were granted is failed_to_start (never a half-hidden view), while a parent that
/// is not root, or namespaces or the user switch refused with EPERM, degrade: the child runs
/// without what was refused and the result says so (isolation_applied, isolation_note).
/// Never throws for anything the child does; throws io_error only when the log file cannot be
/// created or written.
class posix_process_runner final : public process_runner {
 public:
  process_result run(const process_spec& spec) override;
  /// As run, with the read end of the gate's pipe on descriptor gate_fd; the child's environment is
  /// spec.env as given (the program must be told of its gate there). process_result::wall_s counts
  /// from the start, gated_s until the gate opened. A start that fails is reported by finish();
  /// throws io_error, as run does, when the log file cannot be created.
  std::unique_ptr<started_process> start(const process_spec& spec) override;
};

} // namespace arbiter::sandbox
