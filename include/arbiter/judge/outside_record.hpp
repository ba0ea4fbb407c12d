#pragma once
/// The outside clock's record (docs/guard.md, "The outside clock"): every batch of one runner
/// process as the orchestrator's clock saw it, written beside its channel file (outside.json) by the
/// pipeline's outside clock and read by the judge. Nothing the process reports enters it but the
/// arrival of its two batch events.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace arbiter::judge {

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

} // namespace arbiter::judge
