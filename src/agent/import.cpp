#include "arbiter/agent/import.hpp"

#include "arbiter/agent/session.hpp"
#include "arbiter/agent/trace.hpp"
#include "arbiter/agent/workspace.hpp"

#include <map>

namespace arbiter::agent {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::int64_t count(const json& object, const char* key) {
  return object.contains(key) && object[key].is_number() ? object[key].get<std::int64_t>() : 0;
}

// Anthropic usage: input excludes cache reads and writes already.
token_usage anthropic_usage(const json& u) {
  return {count(u, "input_tokens"), count(u, "output_tokens"), count(u, "cache_read_input_tokens"),
          count(u, "cache_creation_input_tokens")};
}

// OpenAI usage: input includes the cached part.
token_usage openai_usage(const json& u) {
  const std::int64_t cached = count(u, "cached_input_tokens");
  return {count(u, "input_tokens") - cached, count(u, "output_tokens"), cached, 0};
}

log_summary read_claude_code(const std::vector<json>& records) {
  log_summary out;
  std::map<std::string, std::size_t> turn_of_message; // stream-json repeats a message per content block
  std::optional<token_usage> result_total;
  for (const auto& record : records) {
    const std::string type = record.value("type", "");
    if (type == "system" && record.value("subtype", "") == "init") out.model = record.value("model", out.model);
    if (type == "assistant" && record.contains("message") && record["message"].is_object() &&
        record["message"].contains("usage")) {
      const json& msg = record["message"];
      const std::string id = msg.value("id", std::to_string(out.per_turn.size()));
      if (out.model.empty()) out.model = msg.value("model", "");
      const auto [it, fresh] = turn_of_message.emplace(id, out.per_turn.size());
      if (fresh) out.per_turn.push_back(anthropic_usage(msg["usage"]));
      else out.per_turn[it->second] = anthropic_usage(msg["usage"]); // the later copy has the final counts
    }
    if (type == "result") {
      if (record.contains("usage")) result_total = anthropic_usage(record["usage"]);
      if (record.contains("total_cost_usd") && record["total_cost_usd"].is_number())
        out.cost_usd = record["total_cost_usd"].get<double>();
      if (record.contains("duration_ms") && record["duration_ms"].is_number())
        out.wall_s = record["duration_ms"].get<double>() / 1000;
      out.turns = record.value("num_turns", 0);
    }
  }
  for (const auto& turn : out.per_turn) out.total += turn;
  if (result_total) out.total = *result_total;
  if (out.turns == 0) out.turns = static_cast<int>(out.per_turn.size());
  if (out.per_turn.empty() && !result_total)
    ARB_THROW(config_error, "no assistant usage and no result record (expected --output-format stream-json)");
  return out;
}

log_summary read_codex(const std::vector<json>& records) {
  log_summary out;
  std::optional<token_usage> running_total;
  for (const auto& record : records) {
    if (record.value("type", "") == "turn.completed" && record.contains("usage")) {
      out.per_turn.push_back(openai_usage(record["usage"]));
      continue;
    }
    const json msg = record.value("msg", json::object());
    if (msg.value("type", "") != "token_count") continue;
    if (msg.contains("info") && msg["info"].is_object() && msg["info"].contains("total_token_usage")) {
      running_total = openai_usage(msg["info"]["total_token_usage"]); // cumulative: the last one is the session's
      if (msg["info"].contains("last_token_usage")) out.per_turn.push_back(openai_usage(msg["info"]["last_token_usage"]));
    } else if (msg.contains("input_tokens")) {
      out.per_turn.push_back(openai_usage(msg));
    }
  }
  for (const auto& turn : out.per_turn) out.total += turn;
  if (running_total) out.total = *running_total;
  if (out.per_turn.empty() && !running_total)
    ARB_THROW(config_error, "no turn.completed usage and no token_count events (expected `codex exec --json` output)");
  out.turns = static_cast<int>(out.per_turn.size());
  return out;
}

} // namespace

log_format log_format_from_string(std::string_view name) {
  if (name == "claude-code") return log_format::claude_code;
  if (name == "codex") return log_format::codex;
  ARB_THROW(config_error, "--from: expected claude-code or codex, found '" + std::string(name) + "'");
}

std::string_view to_string(log_format format) { return format == log_format::claude_code ? "claude-code" : "codex"; }

log_summary read_harness_log(log_format format, const fs::path& log) {
  if (!fs::is_regular_file(log)) ARB_THROW(config_error, log.string() + ": no such log file");
  const auto records = read_records(log);
  try {
    return format == log_format::claude_code ? read_claude_code(records) : read_codex(records);
  } catch (const error&) {
    rethrow_with_context("while reading the " + std::string(to_string(format)) + " log " + log.string());
  }
}

nlohmann::json import_solution(const import_options& options) {
  if (!fs::is_regular_file(options.solution))
    ARB_THROW(config_error, "--solution " + options.solution.string() + ": no such file");
  const log_summary summary = read_harness_log(options.format, options.log);
  const session_paths paths = paths_for(options.out_root, options.problem, options.model);
  fs::create_directories(paths.solution_dir);
  fs::copy_file(options.solution, paths.solution_dir / "kernel.py", fs::copy_options::overwrite_existing);
  const std::string trace_name = "trace." + std::string(to_string(options.format)) + ".jsonl";
  fs::copy_file(options.log, paths.solution_dir / trace_name, fs::copy_options::overwrite_existing);
  json per_turn = json::array();
  for (std::size_t turn_idx = 0; turn_idx < summary.per_turn.size(); ++turn_idx) {
    json entry = to_json(summary.per_turn[turn_idx]);
    entry["turn"] = turn_idx + 1;
    per_turn.push_back(entry);
  }
  std::optional<double> cost = summary.cost_usd;
  if (!cost && options.prices) cost = cost_usd(summary.total, *options.prices);
  const json meta = {{"harness", to_string(options.format)},
                     {"model", options.model},
                     {"harness_model", summary.model},
                     {"problem", options.problem},
                     {"turns", summary.turns},
                     {"wall_s", summary.wall_s ? json(*summary.wall_s) : json(nullptr)},
                     {"tokens", to_json(summary.total)},
                     {"tokens_per_turn", per_turn},
                     {"cost_usd", cost ? json(*cost) : json(nullptr)},
                     {"solution", true},
                     {"trace", trace_name}};
  write_json_atomic(paths.meta(), meta);
  return meta;
}

} // namespace arbiter::agent
