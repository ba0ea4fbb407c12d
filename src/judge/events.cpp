#include "arbiter/judge/events.hpp"

#include "arbiter/common/event_names.hpp"
#include "arbiter/common/json_field.hpp"

#include <cstdint>
#include <fstream>

namespace arbiter::judge {

namespace {

void apply(runner_events& events, const nlohmann::json& record) {
  namespace name_of = event_name;
  const std::string name = string_or(record, "event"); // a frame's object, whatever it holds
  if (events.done) ++events.after_done;
  events.last_event = name;
  if (name == name_of::start) {
    events.started = true;
    events.start = record;
  } else if (name == name_of::done) {
    events.done = true;
    ++events.done_count;
  } else if (name == name_of::error) {
    events.error = record;
  } else if (name == name_of::weights) {
    events.weights.push_back(record);
  } else if (name == name_of::case_) {
    events.cases.push_back(record);
  } else if (name == name_of::census) {
    events.census.push_back(record);
  } else if (name == name_of::integrity) {
    events.integrity.push_back(record);
  } else if (name == name_of::timing) {
    events.timings.push_back(record);
  } else if (name == name_of::timed) {
    events.timed.push_back(record);
  }
}

} // namespace

runner_events read_events(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return events_of(read_frames(in));
}

runner_events events_of(const frame_stream& frames) {
  runner_events events;
  for (const auto& record : frames.events) apply(events, record);
  events.fault = frames.fault;
  events.torn = frames.torn_tail;
  // A frame cut short after "done" was not cut by a kill: the runner had nothing left to write.
  if (!events.fault && events.torn && events.done) events.fault = "a frame cut short after 'done'";
  return events;
}

std::vector<const nlohmann::json*> shape_events(const nlohmann::json& events, std::size_t shape_idx) {
  std::vector<const nlohmann::json*> found;
  for (const auto& event : events) {
    const auto it = event.find("shape_idx");
    if (it != event.end() && it->is_number_integer() && it->get<std::int64_t>() == static_cast<std::int64_t>(shape_idx))
      found.push_back(&event);
  }
  return found;
}

std::string error_line(const nlohmann::json& error) {
  // The event is the runner's, in a candidate's process: members of any type.
  std::string message = string_or(error, "type", "Error") + ": " + string_or(error, "message");
  if (const auto newline = message.find('\n'); newline != std::string::npos) message.resize(newline);
  if (message.size() > 300) message = message.substr(0, 297) + "...";
  return message;
}

} // namespace arbiter::judge
