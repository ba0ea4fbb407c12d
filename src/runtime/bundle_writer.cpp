#include "bundle_writer.hpp"

#include "arbiter/runtime/arbiter_runtime.h"
#include "failure.hpp"
#include "parallel_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

namespace arbiter::runtime {

bundle_writer::bundle_writer(std::string path) : m_path(std::move(path)), m_tmp_path(m_path + ".tmp") {
  m_fd = ::open(m_tmp_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (m_fd < 0) fail(ARB_E_IO, "bundle " + m_path + ": cannot create: " + std::strerror(errno));
  // The count is patched by close(); a crash leaves count 0 in a .tmp file nobody reads.
  const uint32_t header[2] = {0, 0};
  write(k_bundle_magic, sizeof k_bundle_magic);
  write(header, sizeof header);
}

bundle_writer::~bundle_writer() {
  if (m_fd >= 0) ::close(m_fd);
  if (!m_closed) std::remove(m_tmp_path.c_str());
}

void bundle_writer::add(const value_info& info, const void* data) {
  if (m_closed) fail(ARB_E_ARG, "bundle " + m_path + ": add after close");
  const std::string problem = validate_value(info);
  if (!problem.empty()) fail(ARB_E_ARG, "bundle " + m_path + ": value " + std::to_string(m_count) + ": " + problem);
  if (info.nbytes > 0 && data == nullptr) fail(ARB_E_ARG, "bundle " + m_path + ": null data");
  if (m_count == std::numeric_limits<uint32_t>::max()) fail(ARB_E_ARG, "bundle " + m_path + ": too many values");
  const uint32_t header[4] = {static_cast<uint32_t>(info.kind), static_cast<uint32_t>(info.dtype),
                              static_cast<uint32_t>(info.ndim), 0};
  write(header, sizeof header);
  write(info.shape, 8 * static_cast<uint64_t>(info.ndim));
  write(&info.nbytes, sizeof info.nbytes);
  write(data, info.nbytes);
  ++m_count;
}

void bundle_writer::close() {
  if (m_closed) fail(ARB_E_ARG, "bundle " + m_path + ": closed twice");
  // A value cut off by a failed write would make the file unreadable: it never becomes the bundle.
  if (m_broken) fail(ARB_E_IO, "bundle " + m_path + ": not written: an earlier write failed");
  if (const int error = pwrite_all(m_fd, sizeof k_bundle_magic, &m_count, sizeof m_count); error != 0)
    io_fail("write of the count", error);
  const int close_rc = ::close(m_fd);
  m_fd = -1;
  if (close_rc != 0) io_fail("close", errno);
  if (std::rename(m_tmp_path.c_str(), m_path.c_str()) != 0) io_fail("rename from " + m_tmp_path, errno);
  m_closed = true;
}

void bundle_writer::write(const void* bytes, uint64_t nbytes) {
  if (nbytes == 0) return;
  if (const int error = pwrite_all(m_fd, m_offset, bytes, nbytes); error != 0) {
    m_broken = true;
    io_fail("write", error);
  }
  m_offset += nbytes;
}

void bundle_writer::io_fail(const std::string& what, int error) {
  fail(ARB_E_IO, "bundle " + m_path + ": " + what + " failed: " + std::strerror(error));
}

} // namespace arbiter::runtime
