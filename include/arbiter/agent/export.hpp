#pragma once
/// `arbiter agent export-traces`: every session's trace under a solutions folder as one JSON line
/// per session, in the chat-messages shape that fine-tuning and analysis tools read.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <ostream>
#include <vector>

namespace arbiter::agent {

/// One line: problem, model, harness, stop_reason, turns, tokens, cost_usd, wall_s, the final
/// kernel.py, the tools offered, and messages (system, user, assistant with tool_calls, tool
/// results) each with its timestamp.
nlohmann::json export_session(const std::filesystem::path& solution_dir);

/// Writes a line for every <problem>/<model>/trace.jsonl under root (sorted); returns how many.
/// Throws config_error when root is no folder.
std::size_t export_traces(const std::filesystem::path& root, std::ostream& out);

} // namespace arbiter::agent
