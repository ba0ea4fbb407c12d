#include "bundle_reader.hpp"

#include "arbiter/runtime/arbiter_runtime.h"
#include "failure.hpp"
#include "parallel_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace arbiter::runtime {

bundle_reader::bundle_reader(std::string path) : m_path(std::move(path)) {
  m_fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (m_fd < 0) fail(ARB_E_IO, "bundle " + m_path + ": cannot open: " + std::strerror(errno));
  try {
    struct stat st {};
    if (fstat(m_fd, &st) != 0) fail(ARB_E_IO, "bundle " + m_path + ": cannot stat: " + std::strerror(errno));
    m_file_bytes = static_cast<uint64_t>(st.st_size);
    char magic[sizeof k_bundle_magic];
    read_at(0, magic, sizeof magic, "header");
    if (std::memcmp(magic, k_bundle_magic, sizeof magic) != 0) format_fail("bad magic (expected ARBB0001)");
    uint32_t header[2] = {};
    read_at(sizeof magic, header, sizeof header, "header");
    index_values(header[0]);
  } catch (...) {
    ::close(m_fd); // the destructor does not run for a constructor that throws
    throw;
  }
}

bundle_reader::~bundle_reader() {
  if (m_fd >= 0) ::close(m_fd);
}

const value_info& bundle_reader::info(int64_t idx) const {
  if (idx < 0 || idx >= count())
    fail(ARB_E_ARG,
         "bundle " + m_path + ": value " + std::to_string(idx) + " out of range (count " + std::to_string(count()) + ")");
  return m_values[static_cast<size_t>(idx)].info;
}

void bundle_reader::copy(int64_t idx, void* dst, uint64_t dst_bytes) {
  const value_info& value = info(idx);
  if (dst_bytes != value.nbytes)
    fail(ARB_E_ARG,
         "bundle " + m_path + ": value " + std::to_string(idx) + " holds " + std::to_string(value.nbytes) +
             " bytes, destination " + std::to_string(dst_bytes));
  if (dst_bytes > 0 && dst == nullptr) fail(ARB_E_ARG, "bundle " + m_path + ": null destination");
  const uint64_t offset = m_values[static_cast<size_t>(idx)].data_offset;
  if (const int error = pread_all(m_fd, offset, dst, dst_bytes); error != 0)
    fail(ARB_E_IO, "bundle " + m_path + ": read of data failed: " + std::strerror(error));
}

uint64_t bundle_reader::data_offset(int64_t idx) const {
  info(idx); // the range check
  return m_values[static_cast<size_t>(idx)].data_offset;
}

void bundle_reader::index_values(uint32_t count) {
  uint64_t offset = k_bundle_header_bytes;
  m_values.reserve(std::min<uint64_t>(count, 4096));
  for (uint32_t value_idx = 0; value_idx < count; ++value_idx) {
    const std::string where = "value " + std::to_string(value_idx);
    indexed_value value;
    uint32_t header[4] = {};
    read_at(offset, header, sizeof header, where.c_str());
    value.info.kind = static_cast<int32_t>(header[0]);
    value.info.dtype = static_cast<int32_t>(header[1]);
    value.info.ndim = static_cast<int32_t>(header[2]);
    if (header[2] > static_cast<uint32_t>(k_max_ndim)) format_fail(where + ": ndim " + std::to_string(header[2]) + " > 8");
    const uint64_t shape_bytes = 8 * static_cast<uint64_t>(value.info.ndim);
    read_at(offset + k_value_header_bytes, value.info.shape, shape_bytes, where.c_str());
    read_at(offset + k_value_header_bytes + shape_bytes, &value.info.nbytes, 8, where.c_str());
    const std::string problem = validate_value(value.info);
    if (!problem.empty()) format_fail(where + ": " + problem);
    value.data_offset = offset + k_value_header_bytes + shape_bytes + 8;
    if (value.info.nbytes > m_file_bytes - std::min(m_file_bytes, value.data_offset))
      format_fail("truncated: " + where + " needs " + std::to_string(value.info.nbytes) + " bytes at offset " +
                  std::to_string(value.data_offset) + ", file has " + std::to_string(m_file_bytes));
    offset = value.data_offset + value.info.nbytes;
    m_values.push_back(value);
  }
  if (offset != m_file_bytes)
    format_fail(std::to_string(m_file_bytes - offset) + " trailing bytes after " + std::to_string(count) + " values");
}

void bundle_reader::read_at(uint64_t offset, void* dst, uint64_t nbytes, const char* what) {
  if (nbytes == 0) return;
  if (offset > m_file_bytes || nbytes > m_file_bytes - offset)
    format_fail(std::string("truncated: ") + what + " needs " + std::to_string(nbytes) + " bytes at offset " +
                std::to_string(offset) + ", file has " + std::to_string(m_file_bytes));
  if (const int error = pread_all(m_fd, offset, dst, nbytes); error != 0)
    fail(ARB_E_IO, "bundle " + m_path + ": read of " + what + " failed: " + std::strerror(error));
}

void bundle_reader::format_fail(const std::string& what) const { fail(ARB_E_FORMAT, "bundle " + m_path + ": " + what); }

} // namespace arbiter::runtime
