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

/// A timing record as the C runtime writes it (docs/protocol.md); nullopt if malformed.
std::optional<store::measurement_record> timing_record(const nlohmann::json& record);

/// Reads a timing JSON written by the C runtime; a discarded value if missing or malformed.
nlohmann::json read_timing_json(const std::filesystem::path& file);

/// The record of the first "timing" event of the shape on the channel; nullopt if there is none.
std::optional<nlohmann::json> channel_record(const runner_events& events, std::size_t shape_idx);

} // namespace arbiter::pipeline::detail
