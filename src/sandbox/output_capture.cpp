#include "detail/output_capture.hpp"

#include "arbiter/common/error.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace arbiter::sandbox::detail {

output_capture::output_capture(const std::string& path, std::uint64_t head_bytes, std::uint64_t tail_bytes)
    : m_path(path), m_head_limit(head_bytes), m_tail_limit(tail_bytes) {
  if (path.empty()) ARB_THROW(io_error, "process log path is empty");
  m_fd = unique_fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!m_fd.valid()) {
    ARB_THROW(io_error, "cannot create process log " + path + ": " + std::strerror(errno));
  }
}

void output_capture::append(const char* data, std::size_t size) {
  m_total += size;
  if (m_head_written < m_head_limit) {
    auto const take = static_cast<std::size_t>(std::min<std::uint64_t>(size, m_head_limit - m_head_written));
    write_all(data, take);
    m_head_written += take;
    data += take;
    size -= take;
  }
  if (size > 0) keep_tail(data, size);
}

void output_capture::keep_tail(const char* data, std::size_t size) {
  auto const limit = static_cast<std::size_t>(m_tail_limit);
  if (limit == 0) return;
  if (size >= limit) { // the chunk alone fills the ring: keep only its end
    m_ring.assign(data + (size - limit), data + size);
    m_ring_start = 0;
    return;
  }
  if (m_ring.size() < limit) { // still growing
    auto const room = std::min(size, limit - m_ring.size());
    m_ring.insert(m_ring.end(), data, data + room);
    data += room;
    size -= room;
  }
  for (std::size_t byte_idx = 0; byte_idx < size; ++byte_idx) { // full: overwrite the oldest
    m_ring[m_ring_start] = data[byte_idx];
    m_ring_start = (m_ring_start + 1) % limit;
  }
}

void output_capture::write_all(const char* data, std::size_t size) {
  while (size > 0 && m_write_errno == 0) {
    ssize_t const written = ::write(m_fd.get(), data, size);
    if (written < 0) {
      if (errno != EINTR) m_write_errno = errno;
      continue;
    }
    data += written;
    size -= static_cast<std::size_t>(written);
  }
}

void output_capture::finish() {
  if (!m_fd.valid()) return;
  if (truncated()) {
    auto const elided = m_total - m_head_limit - m_tail_limit;
    std::string const note = "\n[... " + std::to_string(elided) + " bytes elided ...]\n";
    write_all(note.data(), note.size());
  }
  write_all(m_ring.data() + m_ring_start, m_ring.size() - m_ring_start);
  write_all(m_ring.data(), m_ring_start);
  m_ring.clear();
  m_ring_start = 0;
  int const close_result = ::close(m_fd.release());
  int const close_errno = errno;
  if (m_write_errno != 0) {
    ARB_THROW(io_error, "cannot write process log " + m_path + ": " + std::strerror(m_write_errno));
  }
  if (close_result != 0) {
    ARB_THROW(io_error, "cannot close process log " + m_path + ": " + std::strerror(close_errno));
  }
}

} // namespace arbiter::sandbox::detail
