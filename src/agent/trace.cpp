#include "arbiter/agent/trace.hpp"

#include <chrono>
#include <ctime>
#include <set>

#include <fmt/format.h>

namespace arbiter::agent {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

message assistant_from(const json& record) {
  message m;
  m.who = role::assistant;
  m.text = record.value("content", "");
  for (const auto& call : record.value("tool_calls", json::array())) m.calls.push_back(tool_call_from_json(call));
  return m;
}

message tool_from(const json& record) {
  message m;
  m.who = role::tool;
  m.call_id = record.value("tool_call_id", "");
  m.tool_name = record.value("name", "");
  m.text = record.value("content", "");
  m.is_error = record.value("is_error", false);
  return m;
}

void apply(trace_state& state, const json& record) {
  const std::string type = record.value("type", "");
  state.elapsed_s = std::max(state.elapsed_s, record.value("elapsed_s", 0.0));
  if (type == "session") {
    state.started = true;
  } else if (type == "system") {
    state.system = record.value("content", "");
  } else if (type == "user") {
    state.messages.push_back({role::user, record.value("content", ""), {}, "", "", false});
  } else if (type == "assistant") {
    state.messages.push_back(assistant_from(record));
    turn_record turn{record.value("turn", 0), usage_from_json(record.value("usage", json::object())),
                     record.value("latency_s", 0.0), record.value("finish", "")};
    state.used += turn.usage;
    state.turns.push_back(turn);
  } else if (type == "tool_result") {
    state.messages.push_back(tool_from(record));
  } else if (type == "stop") {
    state.stopped = stop_reason_from_string(record.value("reason", ""));
  }
}

// Calls of the last assistant turn that no tool result answers yet (the run died between them).
std::vector<tool_call> pending_calls(const std::vector<message>& messages) {
  std::set<std::string> answered;
  for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
    if (it->who == role::tool) {
      answered.insert(it->call_id);
      continue;
    }
    std::vector<tool_call> pending;
    if (it->who == role::assistant)
      for (const auto& call : it->calls)
        if (!answered.contains(call.id)) pending.push_back(call);
    return pending;
  }
  return {};
}

} // namespace

std::string utc_timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &parts);
  return fmt::format("{}.{:03}Z", text, millis);
}

trace_writer::trace_writer(const fs::path& file) : m_file(file) {
  fs::create_directories(file.parent_path());
  m_out.open(file, std::ios::app);
  if (!m_out) ARB_THROW(io_error, "cannot open trace " + file.string() + " for appending");
}

void trace_writer::append(json record) {
  json line = {{"ts", utc_timestamp()}};
  line.update(record);
  const std::lock_guard lock(m_mutex);
  m_out << line.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
  m_out.flush();
  if (!m_out) ARB_THROW(io_error, "cannot write trace " + m_file.string());
}

std::vector<json> read_records(const fs::path& file) {
  std::vector<json> records;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    json record = json::parse(line, nullptr, false);
    if (!record.is_discarded() && record.is_object()) records.push_back(std::move(record));
  }
  return records;
}

trace_state read_trace(const fs::path& file) {
  trace_state state;
  for (const auto& record : read_records(file)) apply(state, record);
  state.pending = pending_calls(state.messages);
  return state;
}

} // namespace arbiter::agent
