#pragma once
/// A self-check of one solution against one problem on PUBLIC seeds, with no database: the same
/// clean reference process, sandboxed candidate process and judge as `arbiter eval`, so that what
/// `check` says is what scoring will say, except for the inputs (campaigns draw secret seeds).
#include "arbiter/common/verdict.hpp"
#include "arbiter/pipeline/options.hpp"
#include "arbiter/sandbox/process.hpp"
#include "arbiter/store/records.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace arbiter::pipeline {

/// The fixed public input seeds of `check` (never used by a campaign, whose seeds come from the OS).
std::vector<std::uint64_t> public_seeds(int count);

struct check_options {
  std::filesystem::path problem_dir; ///< a problem folder of a suite (its suite.toml defaults apply)
  std::filesystem::path solution;    ///< the kernel.py to check
  std::filesystem::path data_dir;    ///< reference cache and run folders (created)
  std::string device;                ///< "cpu" | "cuda"; empty = cuda when a GPU is usable
  std::string python;                ///< empty = doctor::find_python()
  int num_seeds = 3;
  double timeout_s = 300;
  /// Shorter than a campaign's: a quick look.
  timing_options timing{
      .warmup_calls = 3, .min_samples = 5, .max_samples = 200, .min_time_s = 0.05, .max_time_s = 0.5, .target_rel_noise = 0.02};
  bool sandbox = true; ///< as eval_options::sandbox
};

struct check_report {
  std::string problem;
  std::string device;
  outcome result;
  std::optional<double> speedup; ///< geomean over shapes vs eager, passed only
  nlohmann::json details = nlohmann::json::object();
  std::vector<store::measurement_record> measurements;
  std::filesystem::path run_dir; ///< job, events and log of the candidate run
};

/// Runs the reference (cached in data_dir) and the candidate, and judges. Throws config_error
/// for a folder that is no problem or a missing solution; the solution's own failure is the
/// report's verdict, never an exception.
check_report run_check(const check_options& options, sandbox::process_runner& runner);

/// The report as JSON: problem, device, verdict, reason, speedup, cases, timings, log.
nlohmann::json check_report_json(const check_report& report);

} // namespace arbiter::pipeline
