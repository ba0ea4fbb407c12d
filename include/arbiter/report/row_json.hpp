#pragma once
/// A leaderboard row as JSON: the one serialiser of a model's summary, used by `arbiter leaderboard
/// --format json`, the server's leaderboard view and API, and the exports that read either. For
/// nlohmann::json and nlohmann::ordered_json alike (the CLI keeps the members in this order).
#include "arbiter/common/json_number.hpp"
#include "arbiter/score/metrics.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstddef>

namespace arbiter::report {

/// fast_p at each threshold (score::k_fast_p_thresholds), keyed by the threshold as written ("1", "1.5", …).
template <class Json = nlohmann::ordered_json>
Json fast_p_json(const score::model_summary& row) {
  Json out = Json::object();
  for (std::size_t idx = 0; idx < score::k_fast_p_thresholds.size(); ++idx)
    out[fmt::format("{}", score::k_fast_p_thresholds[idx])] = row.fast_p[idx];
  return out;
}

template <class Json = nlohmann::ordered_json>
Json row_json(std::size_t rank, const score::model_summary& row) {
  Json verdicts = Json::object();
  for (const auto& [name, count] : row.verdict_counts) verdicts[name] = count;
  return {{"rank", rank},
          {"model", row.model},
          {"harness", row.harness},
          {"problems", row.problems},
          {"attempted", row.attempted},
          {"passed", row.passed},
          {"pass_at_1", row.pass_at_1},
          {"mean_speedup", optional_number<Json>(row.mean_speedup)},
          {"median_speedup", optional_number<Json>(row.median_speedup)},
          {"geomean_speedup", optional_number<Json>(row.geomean_speedup)},
          {"kernelarena_score", row.kernelarena_score},
          {"fast_p", fast_p_json<Json>(row)},
          {"tokens_per_solved", optional_number<Json>(row.per_solved.tokens)},
          {"cache_tokens_per_solved", optional_number<Json>(row.per_solved.cache_tokens)},
          {"cost_per_solved_usd", optional_number<Json>(row.per_solved.cost_usd)},
          {"wall_s_per_solved", optional_number<Json>(row.per_solved.wall_s)},
          {"rejected", row.rejected},
          {"stale_guard", row.stale_guard},
          {"verdicts", verdicts}};
}

} // namespace arbiter::report
