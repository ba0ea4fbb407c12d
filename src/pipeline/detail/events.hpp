#pragma once
/// Reads the runner's events.jsonl (docs/protocol.md). The file is written by a process that may
/// be killed mid-line: a torn last line is ignored, never an error.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace arbiter::pipeline::detail {

struct runner_events {
  bool started = false;
  bool done = false;
  std::optional<nlohmann::json> error; ///< the "error" event, if any
  std::string last_event;              ///< name of the last complete event, "" if none
  nlohmann::json start = nlohmann::json::object();
  nlohmann::json weights = nlohmann::json::array(); ///< "weights" events in order
  nlohmann::json cases = nlohmann::json::array();   ///< "case" events in order
  nlohmann::json census = nlohmann::json::array();  ///< "census" events (thread census, guard)
  nlohmann::json integrity = nlohmann::json::array(); ///< "integrity" events (patched objects, guard)
  int done_count = 0;                               ///< more than one "done" is a forged channel
  int after_done = 0;                               ///< events written after the first "done"
};

runner_events read_events(const std::filesystem::path& file);

} // namespace arbiter::pipeline::detail
