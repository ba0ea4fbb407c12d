#pragma once
/// The runner's event channel as frames (docs/protocol.md, "Events"): each event is one line
///   <seq> <length> <json>\n
/// where seq counts from 0 without gaps and length is the byte length of the JSON text. The reader
/// is strict: bytes that are not a well-formed frame, a sequence number out of order or repeated,
/// a payload that is not a JSON object are a fault, never skipped. Only the last frame may be cut
/// short (a process killed mid-write); whether that is allowed is the caller's decision.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arbiter {

struct frame_stream {
  std::vector<nlohmann::json> events; ///< every well-formed frame before the first fault, in order
  /// The first thing wrong, with where it is: "frame 12 at byte 3456: sequence 14 where 12 was due".
  std::optional<std::string> fault;
  /// The stream ends inside a frame (no fault: a writer killed mid-frame leaves this).
  bool torn_tail = false;
  std::uint64_t bytes = 0; ///< bytes read
};

/// One frame as the runner writes it (the test's and tools' writer; the runner has its own in Python).
std::string encode_frame(std::uint64_t seq, const nlohmann::json& event);

/// Each line of JSON text as a frame, numbered in order; a last line without its newline is kept
/// as the start of a frame cut short (tools and tests that hold event logs as JSON lines).
std::string frames_from_lines(std::string_view json_lines);

/// Parses a whole channel. Never throws for the content.
frame_stream decode_frames(std::string_view bytes);

/// Reads a whole stream and decodes it.
frame_stream read_frames(std::istream& in);

} // namespace arbiter
