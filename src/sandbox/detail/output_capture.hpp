#pragma once
/// Writes a child's output into a log file, keeping the first `head_bytes` and the last
/// `tail_bytes` and replacing the middle with one elision note. Private to the sandbox.
#include "detail/unique_fd.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace arbiter::sandbox::detail {

class output_capture {
 public:
  /// Creates (truncates) the log file. Throws io_error naming the path when it cannot.
  output_capture(const std::string& path, std::uint64_t head_bytes, std::uint64_t tail_bytes);

  /// Takes the next chunk of output. Never throws: a write error is remembered for finish().
  void append(const char* data, std::size_t size);
  /// Writes the elision note and the kept tail, then closes the file. Throws io_error when any
  /// write to the log failed.
  void finish();

  std::uint64_t total_bytes() const { return m_total; }
  bool truncated() const { return m_total > m_head_limit + m_tail_limit; }

 private:
  void write_all(const char* data, std::size_t size);
  void keep_tail(const char* data, std::size_t size);

  std::string m_path;
  unique_fd m_fd;
  std::uint64_t m_head_limit;
  std::uint64_t m_tail_limit;
  std::uint64_t m_total = 0;
  std::uint64_t m_head_written = 0;
  std::vector<char> m_ring;     ///< the last bytes past the head; grows up to m_tail_limit
  std::size_t m_ring_start = 0; ///< oldest byte once the ring is full
  int m_write_errno = 0;
};

} // namespace arbiter::sandbox::detail
