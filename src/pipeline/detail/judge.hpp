#pragma once
/// Turns what a candidate process did into a verdict, with details and measurements: process end
/// and runner events first, then the orchestrator's own comparison of every case, then timings.
#include "arbiter/catalog/problem.hpp"
#include "arbiter/guard/finding.hpp"
#include "arbiter/store/records.hpp"
#include "detail/runs.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace arbiter::pipeline::detail {

struct judgement {
  outcome result;
  std::optional<double> speedup;
  nlohmann::json details = nlohmann::json::object();
  std::vector<store::measurement_record> measurements;
  std::vector<guard::finding> findings; ///< every finding, deciding or not
};

judgement judge(const job_context& ctx, const catalog::problem& problem, const candidate_run& run,
                const std::filesystem::path& ref_dir, const std::filesystem::path& eval_dir);

/// Reads a timing JSON written by the C runtime; nullopt if missing or malformed.
std::optional<store::measurement_record> read_timing(const std::filesystem::path& file);

} // namespace arbiter::pipeline::detail
