#pragma once
/// The outside clock (docs/guard.md, "The outside clock"): while a runner process lives, a thread
/// of the orchestrator follows its channel file and serves its batches. On `outside_ready` it copies
/// the shape's batch input sets into `<dir>/in/<shape>/`, reads its clock and writes the go byte;
/// on `outside_done` it holds the process still, reads its clock again, reads the outputs the
/// process declares out of its memory to where the process cannot write, lets it go and writes the
/// release byte. Nothing the process reports enters the record but the two events' arrival and the
/// bytes of its outputs.
#include "arbiter/judge/outside_record.hpp"
#include "arbiter/sandbox/process.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace arbiter::pipeline::detail {

using judge::find_batch;
using judge::k_busy_thread_ms;
using judge::k_quiet_ms;
using judge::outside_batch;
using judge::outside_from_json;
using judge::outside_record;
using judge::read_outside;
using judge::write_outside;

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
