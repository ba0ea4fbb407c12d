#pragma once
/// What agent sessions spent, as their solutions' meta.json says (docs/agent.md), and that per
/// solved problem (docs/metrics.md). No I/O: meta.json arrives as the text the store kept.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace arbiter::score {

/// What one or more sessions spent; a part is empty where no meta.json says.
struct spend {
  std::optional<double> tokens;       ///< input + output (input uncached)
  std::optional<double> cache_tokens; ///< cache_read + cache_write
  std::optional<double> cost_usd;
  std::optional<double> wall_s; ///< the agent's wall time (meta.json `wall_s`), not the evaluation's

  /// Adds each part; a part stays empty only when it is empty on both sides.
  spend& operator+=(const spend& other);
};

/// Who made a solution and what its session spent.
struct session_meta {
  std::string harness; ///< meta.json `harness` ("arbiter-basic", "claude-code", ...); "" when it names none
  spend spent;
};

/// Reads a solution's meta.json text: `harness`; `tokens` as {input, output, cache_read,
/// cache_write} (or {total}, or a plain number: all counted as input + output), else top-level
/// `input_tokens` + `output_tokens`; `cost_usd` (or `cost`); `wall_s`. Text that is not a JSON
/// object reads as empty; a part that is absent, null or not a number stays empty.
session_meta read_session_meta(std::string_view meta_json);

/// total ÷ solved; empty when total is empty or solved <= 0.
std::optional<double> per_solved(const std::optional<double>& total, std::int64_t solved);
/// Each part of total ÷ solved, as above.
spend per_solved(const spend& total, std::int64_t solved);

} // namespace arbiter::score
