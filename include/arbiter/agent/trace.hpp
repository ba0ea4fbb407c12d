#pragma once
/// trace.jsonl: every message, tool call and result of a session, one timestamped JSON object per
/// line, appended and flushed as the session goes, so that a killed run resumes from it
/// (docs/agent.md lists the record types). A torn last line is ignored, never an error.
#include "arbiter/agent/budget.hpp"
#include "arbiter/agent/conversation.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace arbiter::agent {

class trace_writer {
 public:
  /// Opens for appending (creates the file). Throws io_error when it cannot.
  explicit trace_writer(const std::filesystem::path& file);
  /// Adds "ts" (UTC, ISO 8601 with milliseconds) and writes one line, flushed.
  void append(nlohmann::json record);

 private:
  std::filesystem::path m_file;
  std::ofstream m_out;
  std::mutex m_mutex;
};

/// "2025-01-31T12:00:00.123Z" for now.
std::string utc_timestamp();

/// One model turn as recorded.
struct turn_record {
  int turn = 0;
  token_usage usage;
  double latency_s = 0;
  std::string finish;
};

/// What a trace says about a session: enough to continue it.
struct trace_state {
  bool started = false; ///< a "session" record exists
  std::string system;
  std::vector<message> messages; ///< user, assistant and tool messages in order
  std::vector<turn_record> turns;
  token_usage used;
  double elapsed_s = 0; ///< the last record's session wall time
  std::optional<stop_reason> stopped;
  std::vector<tool_call> pending; ///< calls of the last assistant turn without a recorded result
};

/// Reads a trace; a missing file is an empty state.
trace_state read_trace(const std::filesystem::path& file);

/// The records of a trace file (torn lines skipped), for export.
std::vector<nlohmann::json> read_records(const std::filesystem::path& file);

} // namespace arbiter::agent
