#include "arbiter/common/frames.hpp"

#include <fmt/format.h>

#include <charconv>
#include <iterator>

namespace arbiter {

namespace {

/// The longest header accepted: two 20-digit numbers and their spaces.
constexpr std::size_t k_max_header = 42;
/// A payload past this is not a frame the runner writes (the timing record is the largest, ~100 KiB).
constexpr std::uint64_t k_max_payload = 64ull << 20;

/// A decimal number ending in a space, at `pos`; advances past the space. False when malformed.
bool read_number(std::string_view bytes, std::size_t& pos, std::uint64_t& value) {
  const std::size_t space = bytes.find(' ', pos);
  if (space == std::string_view::npos || space == pos || space - pos > 20) return false;
  const char* first = bytes.data() + pos;
  const char* last = bytes.data() + space;
  const auto [end, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || end != last) return false;
  pos = space + 1;
  return true;
}

class decoder {
 public:
  explicit decoder(std::string_view bytes) : m_bytes(bytes) { m_out.bytes = bytes.size(); }

  frame_stream run() {
    while (m_pos < m_bytes.size() && !m_out.fault && !m_out.torn_tail) next();
    return std::move(m_out);
  }

 private:
  void next() {
    const std::size_t start = m_pos;
    std::uint64_t seq = 0, length = 0;
    const std::size_t header_end = m_bytes.find('\n', m_pos);
    const bool header_ok = read_number(m_bytes, m_pos, seq) && read_number(m_bytes, m_pos, length);
    if (!header_ok) {
      // A header cut off by the end of the stream, with nothing wrong in what is there, is torn.
      const bool at_end = header_end == std::string_view::npos && m_bytes.size() - start <= k_max_header &&
          m_bytes.substr(start).find_first_not_of("0123456789 ") == std::string_view::npos;
      if (at_end) m_out.torn_tail = true;
      else fail(start, "not a frame header (<seq> <length> <json>)");
      return;
    }
    if (seq != m_out.events.size()) return fail(start, fmt::format("sequence {} where {} was due", seq, m_out.events.size()));
    if (length > k_max_payload) return fail(start, fmt::format("length {} past the {} byte limit", length, k_max_payload));
    if (m_bytes.size() - m_pos < length + 1) {
      m_out.torn_tail = true;
      return;
    }
    if (m_bytes[m_pos + length] != '\n') return fail(start, "payload not followed by a newline where its length ends");
    auto event = nlohmann::json::parse(m_bytes.substr(m_pos, length), nullptr, /*allow_exceptions=*/false);
    if (event.is_discarded() || !event.is_object()) return fail(start, "payload is not a JSON object");
    m_out.events.push_back(std::move(event));
    m_pos += length + 1;
  }

  void fail(std::size_t at, const std::string& what) {
    m_out.fault = fmt::format("frame {} at byte {}: {}", m_out.events.size(), at, what);
  }

  std::string_view m_bytes;
  std::size_t m_pos = 0;
  frame_stream m_out;
};

} // namespace

std::string encode_frame(std::uint64_t seq, const nlohmann::json& event) {
  const std::string payload = event.dump();
  return fmt::format("{} {} {}\n", seq, payload.size(), payload);
}

std::string frames_from_lines(std::string_view json_lines) {
  std::string out;
  std::uint64_t seq = 0;
  while (!json_lines.empty()) {
    const std::size_t newline = json_lines.find('\n');
    const std::string_view line = json_lines.substr(0, newline);
    const std::string head = fmt::format("{} {} ", seq++, line.size() + (newline == std::string_view::npos ? 8 : 0));
    out += head;
    out += line;
    if (newline == std::string_view::npos) break;
    out += '\n';
    json_lines.remove_prefix(newline + 1);
  }
  return out;
}

frame_stream decode_frames(std::string_view bytes) { return decoder(bytes).run(); }

frame_stream read_frames(std::istream& in) {
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return decode_frames(bytes);
}

} // namespace arbiter
