#pragma once
/// Runs a campaign: every selected solution of a suite, one fresh candidate process each, against
/// a cached clean reference run; verdicts and timings go to the store. Re-running the same
/// campaign skips finished evaluations.
#include "arbiter/common/verdict.hpp"
#include "arbiter/doctor/doctor.hpp"
#include "arbiter/pipeline/options.hpp"
#include "arbiter/pipeline/progress.hpp"
#include "arbiter/sandbox/process.hpp"
#include "arbiter/store/store.hpp"

#include <cstdint>
#include <string>

namespace arbiter::pipeline {

struct campaign_summary {
  std::int64_t campaign_id = 0;
  std::string campaign;
  std::string suite;
  std::string device;
  std::int64_t evaluated = 0;
  std::int64_t resumed = 0; ///< finished earlier, not redone
};

/// The device a run uses: wanted ("cpu" | "cuda"), or cuda when the GPU and torch's CUDA are
/// usable and wanted is empty. Throws config_error for another name, or cuda without a usable GPU.
std::string choose_device(const std::string& wanted, const doctor::environment& env);

/// Throws config_error for bad input (suite, solutions, device), io_error / store_error when the
/// environment fails; a solution's own failure is never an exception but its verdict.
campaign_summary run_campaign(const eval_options& options, store::store& db, sandbox::process_runner& runner, progress& sink);

} // namespace arbiter::pipeline
