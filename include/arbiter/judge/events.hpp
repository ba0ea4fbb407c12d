#pragma once
/// Reads the runner's events.jsonl (docs/protocol.md, "Events"): frames, read strictly
/// (arbiter/common/frames.hpp). The file is written by a process that may be killed mid-frame: a
/// torn last frame is left out, never an error; anything else out of place is a fault the guard
/// reads as a forged channel. For a candidate it is the channel the orchestrator stored itself
/// (sandbox::process_spec::channel_path).
#include "arbiter/common/frames.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace arbiter::judge {

struct runner_events {
  bool started = false;
  bool done = false;
  std::optional<nlohmann::json> error; ///< the "error" event, if any
  std::string last_event;              ///< name of the last complete event, "" if none
  nlohmann::json start = nlohmann::json::object();
  nlohmann::json weights = nlohmann::json::array();   ///< "weights" events in order
  nlohmann::json cases = nlohmann::json::array();     ///< "case" events in order
  nlohmann::json census = nlohmann::json::array();    ///< "census" events (thread census, guard)
  nlohmann::json integrity = nlohmann::json::array(); ///< "integrity" events (patched objects, guard)
  nlohmann::json timings = nlohmann::json::array();   ///< "timing" events: a shape's record from the runtime
  nlohmann::json timed = nlohmann::json::array();     ///< "timed" events: a shape timed, its capture index (guard)
  int done_count = 0;                                 ///< more than one "done" is a forged channel
  int after_done = 0;                                 ///< events written after the first "done"
  /// The first frame out of place (bytes that are not a frame, a sequence number out of order);
  /// the events after it are not read.
  std::optional<std::string> fault;
  bool torn = false; ///< the last frame was cut short (a process killed mid-write)
};

runner_events read_events(const std::filesystem::path& file);

/// The events of a decoded channel (read_events without the file).
runner_events events_of(const frame_stream& frames);

/// The events of `events` (one of the arrays above) whose shape_idx is `shape_idx`, in order.
std::vector<const nlohmann::json*> shape_events(const nlohmann::json& events, std::size_t shape_idx);

/// "<Type>: <message>" of an error event, shortened to one line; members of another type read as
/// missing.
std::string error_line(const nlohmann::json& error);

} // namespace arbiter::judge
