#pragma once
/// Solutions made by other harnesses: their token counts read from the harness's own log into
/// meta.json, beside the solution, so that they rank with arbiter's own sessions.
#include "arbiter/agent/budget.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace arbiter::agent {

enum class log_format : std::uint8_t { claude_code, codex };

/// "claude-code" or "codex"; throws config_error otherwise.
log_format log_format_from_string(std::string_view name);
std::string_view to_string(log_format format);

/// What a harness log says about a session.
struct log_summary {
  token_usage total;
  std::vector<token_usage> per_turn;
  int turns = 0;
  std::optional<double> wall_s;
  std::optional<double> cost_usd; ///< as the harness reported it
  std::string model;              ///< as the harness reported it, when it did
};

/// Claude Code `--output-format stream-json` (assistant messages, de-duplicated by id, and the
/// final "result" record, whose totals win) or Codex `exec --json` (turn.completed usage, or
/// token_count events of older versions). Throws config_error when the file holds no usage at all.
log_summary read_harness_log(log_format format, const std::filesystem::path& log);

struct import_options {
  log_format format = log_format::claude_code;
  std::filesystem::path log;
  std::string problem;
  std::string model;
  std::filesystem::path solution; ///< the kernel.py the harness produced
  std::filesystem::path out_root;
  std::optional<price> prices; ///< cost when the log has none
};

/// Writes out/<problem>/<model>/kernel.py, meta.json and the log as trace.<harness>.jsonl.
/// Returns meta.json's content. Throws config_error / io_error.
nlohmann::json import_solution(const import_options& options);

} // namespace arbiter::agent
