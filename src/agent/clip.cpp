// What the model sees of a command's output: valid UTF-8, head and tail within a byte budget.
#include "arbiter/agent/tools.hpp"

#include <fmt/format.h>

namespace arbiter::agent {

namespace {

// Length of the valid UTF-8 sequence starting at text[pos], or 0 when the byte starts none.
std::size_t sequence_length(const std::string& text, std::size_t pos) {
  const auto lead = static_cast<unsigned char>(text[pos]);
  const std::size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || pos + length > text.size()) return 0;
  for (std::size_t idx = 1; idx < length; ++idx)
    if ((static_cast<unsigned char>(text[pos + idx]) & 0xC0) != 0x80) return 0;
  return length;
}

std::string valid_utf8(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t length = sequence_length(text, pos);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      ++pos;
      continue;
    }
    out.append(text, pos, length);
    pos += length;
  }
  return out;
}

// Moves a cut point back to the start of a UTF-8 sequence.
std::size_t char_boundary(const std::string& text, std::size_t pos) {
  while (pos > 0 && pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) --pos;
  return pos;
}

} // namespace

std::string clip_output(const std::string& text, std::size_t max_bytes) {
  const std::string clean = valid_utf8(text);
  if (clean.size() <= max_bytes) return clean;
  const std::size_t head_end = char_boundary(clean, max_bytes / 2);
  const std::size_t tail_start = char_boundary(clean, clean.size() - max_bytes / 2);
  return clean.substr(0, head_end) + fmt::format("\n[... {} bytes cut ...]\n", tail_start - head_end) + clean.substr(tail_start);
}

} // namespace arbiter::agent
