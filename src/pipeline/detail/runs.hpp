#pragma once
/// The two kinds of runner process of an evaluation.
#include "arbiter/catalog/problem.hpp"
#include "arbiter/catalog/solution.hpp"
#include "arbiter/judge/judge.hpp"
#include "arbiter/sandbox/process.hpp"
#include "detail/jobs.hpp"
#include "detail/outside_clock.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace arbiter::pipeline::detail {

using judge::candidate_run;
using judge::error_line;
using judge::read_events;
using judge::runner_events;

/// A finished reference run: its folder, or why it failed.
struct reference_run {
  std::filesystem::path dir;
  bool ok = false;
  std::string failure;        ///< one line, when !ok
  bool started_ahead = false; ///< its process was started behind its gate before its turn
  double gated_s = 0;         ///< how long that process waited at its gate
};

/// A problem's reference before it runs: its folder under data_dir/reference/, keyed by the
/// problem's content hash, device, seeds, shapes, timing settings and hardware fingerprint.
struct reference_plan {
  std::filesystem::path dir;
  bool cached = false;        ///< a completed run with the same key is there: nothing to run
  sandbox::process_spec spec; ///< the reference process, when !cached
  std::string label;          ///< for the log: the problem, its shapes and seeds
};

/// Finds a cached run, else makes the folder afresh (its job file, and an empty exchange/ that
/// candidate processes started before the reference finishes bind read-only). Throws io_error.
reference_plan plan_reference(const job_context& ctx, const catalog::problem& problem, const std::vector<std::uint64_t>& seeds,
                              const std::string& hardware_fingerprint, const std::filesystem::path& data_dir);

/// Starts a planned reference's process behind its gate (docs/protocol.md, "The gate"); null when
/// the plan is cached.
std::unique_ptr<sandbox::started_process> start_reference(const reference_plan& plan, sandbox::process_runner& runner);

/// Runs the reference to its end — opening the gate of `started` when given, else in a process
/// of its own — and reads whether it completed; a cached plan is ok at once.
reference_run finish_reference(const reference_plan& plan, std::unique_ptr<sandbox::started_process> started,
                               sandbox::process_runner& runner);

/// plan_reference and finish_reference: the reference in a clean process unless cached.
reference_run ensure_reference(const job_context& ctx, const catalog::problem& problem, const std::vector<std::uint64_t>& seeds,
                               const std::string& hardware_fingerprint, const std::filesystem::path& data_dir,
                               sandbox::process_runner& runner);

/// A candidate process started and waiting behind its gate (sandbox::started_process), its folder
/// prepared and its static facts read: started ahead of its turn so that its interpreter's start-up
/// overlaps the evaluations before it (docs/measurement.md, "Throughput").
struct started_candidate {
  candidate_run run; ///< facts and probe so far; the process's end comes with finish_candidate
  sandbox::process_spec spec;
  std::filesystem::path eval_dir;
  std::string label;
  std::unique_ptr<sandbox::started_process> process; ///< null when it could not be started (run.process says why)
  std::unique_ptr<outside_clock> clock;              ///< serves its batches from open_candidate to finish_candidate
};

/// run_candidate's first half: everything up to a process waiting at its gate (ARBITER_GATE_FD).
/// The reference in ref_dir may still be running (its exchange/ must exist): what the candidate
/// takes from it comes with open_candidate. Throws io_error when the solution's files cannot be copied.
started_candidate start_candidate(const job_context& ctx, const catalog::solution& solution, const std::filesystem::path& ref_dir,
                                  const std::filesystem::path& eval_dir, const std::filesystem::path& data_dir,
                                  sandbox::process_runner& runner);

/// Once the reference in ref_dir has finished: hands the candidate its sealed sets and the
/// sandbox user the exchange, then opens the gate without waiting, so that the candidate runs
/// while the caller starts the next ones. A hand-over that fails kills the waiting process and
/// becomes its failed start, which finish_candidate reports.
void open_candidate(started_candidate& started, const std::filesystem::path& ref_dir);

/// run_candidate's second half: waits for the process's end (open_candidate first). Once per start.
candidate_run finish_candidate(started_candidate& started);

/// Copies the solution into eval_dir/work (its private cwd) and runs it in a fresh process with the
/// model's own caches under data_dir/cache/<model>/, sandboxed unless ctx.options.sandbox is off
/// (sandbox_view.hpp), with the CUPTI probe on cuda where it is available (probe_setup.hpp; its
/// evidence in eval_dir/outputs/probe.json). Throws io_error when the sandbox's files cannot be prepared.
candidate_run run_candidate(const job_context& ctx, const catalog::solution& solution, const std::filesystem::path& ref_dir,
                            const std::filesystem::path& eval_dir, const std::filesystem::path& data_dir,
                            sandbox::process_runner& runner);

/// The spec of one runner process: `python -m arbiter_runner <mode> <job_file>` with the runner
/// environment, cwd, the options' wall-clock limit and the log in dir/log.txt.
sandbox::process_spec runner_spec(const job_context& ctx, const std::string& mode, const std::filesystem::path& job_file,
                                  const std::filesystem::path& dir, const std::filesystem::path& cwd,
                                  const std::filesystem::path& cache_dir);

/// Hands the runner its event log as the sandbox's channel (descriptor 3, named by
/// ARBITER_EVENTS_FD): the parent stores it in events_file, a file the child cannot open itself.
void use_channel(sandbox::process_spec& spec, const std::filesystem::path& events_file);

/// Root of the per-model build caches: $ARBITER_CACHE_DIR, else data_dir/cache.
std::filesystem::path cache_root(const std::filesystem::path& data_dir);

/// Copies a solution's files into work (created if needed).
void copy_solution(const catalog::solution& solution, const std::filesystem::path& work);

/// What a cached reference is keyed on: its job without the paths, the folder layout, the problem's
/// hash, the hardware, the interpreter, whether the probe was loaded, and on cpu the runner's thread
/// and allocator settings (cpu_environment), which its baseline timings depend on.
nlohmann::json reference_identity(const job_context& ctx, const nlohmann::json& job, const catalog::problem& problem,
                                  const std::string& hardware_fingerprint, bool probe);

/// The reference folder's layout, part of its cache key: 2 since mutation sets are sealed.
inline constexpr int k_reference_layout = 3;

/// The reference's sealed sets (mutation sets, docs/guard.md) into an evaluation's own sealed/
/// folder, as copies (never links: a candidate writing its copy must not reach the reference's,
/// which every later evaluation of the problem is handed). The runner empties the folder
/// before the solution is imported.
void hand_over_sealed(const std::filesystem::path& from, const std::filesystem::path& to);

/// Why a runner process did not finish: its error event's line, else how the process ended.
std::string failure_line(const sandbox::process_result& process, const runner_events& events);

} // namespace arbiter::pipeline::detail
