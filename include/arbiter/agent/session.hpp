#pragma once
/// One agent session: a model, a problem, a workspace, and the loop of model turns and tool calls
/// until the model answers without a tool call or a budget runs out. Everything is appended to
/// trace.jsonl as it happens; a session whose trace exists continues from it.
#include "arbiter/agent/budget.hpp"
#include "arbiter/agent/http.hpp"
#include "arbiter/agent/protocol.hpp"
#include "arbiter/agent/tools.hpp"
#include "arbiter/agent/workspace.hpp"
#include "arbiter/catalog/problem.hpp"
#include "arbiter/sandbox/process.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace arbiter::agent {

struct model_endpoint {
  api_kind api = api_kind::openai;
  std::string endpoint;
  std::string api_key;
  std::string model;
  int max_output_tokens = 8192; ///< per reply
  double request_timeout_s = 600;
  retry_policy retry;
};

struct session_config {
  model_endpoint endpoint;
  budget limits;
  std::optional<price> prices; ///< no cost without prices
  tool_settings tools;
  workspace_setup setup;
  std::filesystem::path out_root;
};

struct session_result {
  std::string problem;
  std::string model;
  stop_reason reason = stop_reason::model_error;
  int turns = 0;
  token_usage used;
  double wall_s = 0;
  std::optional<double> cost;
  bool resumed = false;         ///< continued from an existing trace
  bool finished_before = false; ///< meta.json said it was done; nothing ran
  bool has_solution = false;    ///< the workspace held a kernel.py at the end
  std::string error;            ///< model_error: why
};

/// The system prompt every session starts with.
std::string system_prompt();

/// Runs (or resumes, or skips when meta.json says it finished) the session of config's model on
/// problem. A failing endpoint ends the session with stop reason model_error, not an exception;
/// throws io_error when the session's own files cannot be written.
session_result run_session(const session_config& config, const catalog::problem& problem, http_client& client,
                           sandbox::process_runner& runner, const sleeper& sleep);

/// meta.json of a session (docs/agent.md): harness, tokens per turn and in total, cost, wall
/// time, turns, stop reason.
nlohmann::json session_meta(const session_config& config, const std::string& problem_id, const session_result& result,
                            const std::vector<nlohmann::json>& per_turn);

/// Writes JSON through a temporary file and a rename, so that a reader never sees half of it.
void write_json_atomic(const std::filesystem::path& file, const nlohmann::json& value);

} // namespace arbiter::agent
