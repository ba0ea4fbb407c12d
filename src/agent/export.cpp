#include "arbiter/agent/export.hpp"
#include "arbiter/common/file.hpp"

#include "arbiter/agent/tools.hpp"
#include "arbiter/agent/trace.hpp"

#include <algorithm>
#include <fstream>

namespace arbiter::agent {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

json read_json_file(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return json::object();
  json value = json::parse(in, nullptr, false);
  return value.is_object() ? value : json::object();
}

// A trace record as a chat message, or null for records that are no message (retry, stop, ...).
json as_message(const json& record) {
  const std::string type = record.value("type", "");
  const std::string ts = record.value("ts", "");
  if (type == "system" || type == "user") return {{"role", type}, {"content", record.value("content", "")}, {"ts", ts}};
  if (type == "assistant") {
    json calls = json::array();
    for (const auto& call : record.value("tool_calls", json::array()))
      calls.push_back({{"id", call.value("id", "")},
                       {"type", "function"},
                       {"function", {{"name", call.value("name", "")}, {"arguments", call.value("arguments", "")}}}});
    json m = {{"role", "assistant"},
              {"content", record.value("content", "")},
              {"ts", ts},
              {"usage", record.value("usage", json::object())}};
    if (!calls.empty()) m["tool_calls"] = calls;
    return m;
  }
  if (type == "tool_result")
    return {{"role", "tool"},
            {"tool_call_id", record.value("tool_call_id", "")},
            {"name", record.value("name", "")},
            {"content", record.value("content", "")},
            {"is_error", record.value("is_error", false)},
            {"ts", ts}};
  return nullptr;
}

} // namespace

json export_session(const fs::path& solution_dir) {
  const json meta = read_json_file(solution_dir / "meta.json");
  json messages = json::array();
  std::size_t retries = 0;
  for (const auto& record : read_records(solution_dir / "trace.jsonl")) {
    if (record.value("type", "") == "retry") ++retries;
    if (json m = as_message(record); !m.is_null()) messages.push_back(std::move(m));
  }
  json tools = json::array();
  for (const auto& spec : tool_specs())
    tools.push_back({{"name", spec.name}, {"description", spec.description}, {"parameters", spec.parameters}});
  const fs::path kernel = solution_dir / "kernel.py";
  return {{"problem", solution_dir.parent_path().filename().string()},
          {"model", solution_dir.filename().string()},
          {"harness", meta.value("harness", "arbiter-basic")},
          {"stop_reason", meta.value("stop_reason", "")},
          {"turns", meta.value("turns", 0)},
          {"tokens", meta.value("tokens", json::object())},
          {"cost_usd", meta.value("cost_usd", json(nullptr))},
          {"wall_s", meta.value("wall_s", json(nullptr))},
          {"http_retries", retries},
          {"kernel", fs::is_regular_file(kernel) ? json(try_read_file(kernel).value_or("")) : json(nullptr)},
          {"tools", tools},
          {"messages", messages}};
}

std::size_t export_traces(const fs::path& root, std::ostream& out) {
  if (!fs::is_directory(root)) ARB_THROW(config_error, root.string() + ": expected a solutions folder");
  std::vector<fs::path> sessions;
  for (const auto& problem : fs::directory_iterator(root)) {
    if (!problem.is_directory() || problem.path().filename().string().starts_with(".")) continue;
    for (const auto& model : fs::directory_iterator(problem.path()))
      if (fs::is_regular_file(model.path() / "trace.jsonl")) sessions.push_back(model.path());
  }
  std::sort(sessions.begin(), sessions.end());
  for (const auto& dir : sessions) out << export_session(dir).dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
  return sessions.size();
}

} // namespace arbiter::agent
