#pragma once
/// The outside clock (docs/guard.md, "The outside clock"): while a runner process lives, a thread
/// of the orchestrator follows its channel file and serves its batches. On `outside_ready` it copies
/// the shape's batch input sets into `<dir>/in/<shape>/`, reads its clock and writes the go byte;
/// on `outside_done` it holds the process still, reads its clock again, reads the outputs the
/// process declares out of its memory to where the process cannot write, lets it go and writes the
/// release byte. Nothing the process reports enters the record but the two events' arrival and the
/// bytes of its outputs.
#include "arbiter/sandbox/process.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace arbiter::pipeline::detail {

/// One batch as the orchestrator's clock saw it.
struct outside_batch {
  std::size_t shape_idx = 0;
  std::string label;     ///< "candidate"; the reference's "reference", "overhead0".."overhead2"
  int calls = 0;         ///< input sets handed over
  double wall_ms = 0;    ///< from the go to the `outside_done` event's arrival
  bool finished = false; ///< false: the process ended inside the batch
  /// The kernel's account of the CPU time the process (its cgroup) used over the same span; none
  /// where the process has no such account. Unlike the wall, it does not grow with the host's load.
  std::optional<double> cpu_ms;
  /// The CPU time its processes used in the k_quiet_ms after they were let go, while the runner
  /// waited for its release and nothing of the harness runs: work that outlives the calls (a
  /// thread busy at return). Measured for the candidate's batches only, where there is a CPU account.
  std::optional<double> busy_ms;
  /// Read outside the process over the same span (/proc/<pid>/task, native threads included): how
  /// many threads its processes had, how long they ran together (the fallback account where the
  /// cgroup gives none), and those that ran ("name (tid N): 1.2 ms", busiest first).
  std::optional<int> threads{};
  std::optional<double> threads_busy_ms{};
  std::vector<std::string> busy_threads{};
};

/// A thread that ran less than this in the quiet window is not named among its busy threads.
inline constexpr double k_busy_thread_ms = 0.05;

/// How long the orchestrator watches the CPU account after a candidate's answer.
inline constexpr int k_quiet_ms = 5;

/// outside.json, beside the channel file: every batch and anything out of order.
struct outside_record {
  std::vector<outside_batch> batches;
  std::vector<std::string> faults; ///< events out of order: a second ready, a done with no batch open
};

/// The batch of (shape, label), if the record holds a finished one.
std::optional<outside_batch> find_batch(const outside_record& record, std::size_t shape_idx, const std::string& label);

nlohmann::json to_json(const outside_record& record);
outside_record outside_from_json(const nlohmann::json& doc);
void write_outside(const std::filesystem::path& file, const outside_record& record);
/// nullopt when the file is missing or not a record.
std::optional<outside_record> read_outside(const std::filesystem::path& file);

/// Where one process's batches live.
struct outside_paths {
  std::filesystem::path channel; ///< the channel file the process's events arrive in
  std::filesystem::path fifo;    ///< the go pipe; made here, opened by the runner (job key outside.fifo)
  /// The batches' folder (job key outside.dir), the orchestrator's: in/<shape>/ is copied at the go.
  std::filesystem::path dir;
  std::filesystem::path sets_dir; ///< the reference's batch input sets, <sets_dir>/<shape>/<n>.arbb
  std::filesystem::path kept_dir; ///< where outputs are kept at `outside_done`, <shape>/<label>/<n>.arbb; empty: not kept
};

/// A reference's batches: its own folder's outside/, the sets it writes in outside-sets/.
outside_paths reference_outside(const std::filesystem::path& ref_dir);
/// A candidate's batches: its folder's outside/, the reference's sets, outputs kept in outside-kept/.
outside_paths candidate_outside(const std::filesystem::path& ref_dir, const std::filesystem::path& eval_dir);

/// The job's `outside` object for these paths.
nlohmann::json outside_job(const outside_paths& paths);

/// Serves one process's batches from construction to stop(). Makes the go pipe at construction,
/// so it must exist before the process's gate opens. Throws io_error when the pipe cannot be made.
class outside_clock {
 public:
  /// `access` (sandbox::started_process::access): its CPU account is read at each go and each
  /// `outside_done` (batch.cpu_ms); at each `outside_done` the process is held still, then the
  /// clocks are read, and, with a kept_dir, the outputs it declares are read out of its memory
  /// (outside_outputs.hpp) before it is let go and released (a byte on the go pipe).
  explicit outside_clock(outside_paths paths, sandbox::process_access access = {});
  ~outside_clock();
  outside_clock(const outside_clock&) = delete;
  outside_clock& operator=(const outside_clock&) = delete;
  /// Call after the process has ended: reads what is left of the channel, stops the thread,
  /// writes outside.json beside the channel and returns the record.
  outside_record stop();

 private:
  struct state;
  std::unique_ptr<state> m_state;
};

} // namespace arbiter::pipeline::detail
