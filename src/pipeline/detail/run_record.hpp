#pragma once
/// A candidate's run as the judge takes it, kept in its evaluation folder as run.json, so that the
/// run can be judged again without running the candidate (`arbiter rejudge`; docs/guard.md,
/// "Guard version and re-judging"): how the process ended, the sandbox it ran in, the solution's
/// static facts, the probe's status and key, and what the judgement was asked (the reference
/// folder, the device, the shapes by name, the input sets). The runner's events stay the folder's
/// events.jsonl, read back as the campaign reads them.
#include "detail/runs.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace arbiter::pipeline::detail {

struct run_record {
  candidate_run run; ///< everything but events, which come from the folder's events.jsonl
  std::filesystem::path reference_dir;
  std::string device;              ///< "cpu" | "cuda"
  std::vector<std::string> shapes; ///< the problem's shapes for the device, by name, in order
  int num_seeds = 0;               ///< input sets per shape
};

/// The file's layout; a reader refuses any other.
inline constexpr int k_run_record_version = 1;
inline constexpr const char* k_run_record_file = "run.json";

/// The record of a finished run: its process, sandbox, facts and probe, and the context it was judged in.
run_record make_run_record(const job_context& ctx, const candidate_run& run, const std::filesystem::path& ref_dir);

/// Writes eval_dir/run.json. Throws io_error naming the file.
void write_run_record(const std::filesystem::path& eval_dir, const run_record& record);

/// Reads eval_dir/run.json, and the run's events from eval_dir/events.jsonl. Throws io_error when
/// run.json cannot be read, config_error naming the file and the key when it is not JSON, is of
/// another version, or a key is missing or of another type.
run_record read_run_record(const std::filesystem::path& eval_dir);

} // namespace arbiter::pipeline::detail
