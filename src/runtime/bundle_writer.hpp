#pragma once
/// Streams values into a tensor bundle (.arbb). Data goes to "<path>.tmp" as each value is added
/// and the file is renamed onto <path> only by a successful close(), so a reader never sees a
/// half-written bundle, even after a crash. Positioned writes: a large value goes out in parallel
/// chunks (parallel_io.hpp).
#include "bundle_format.hpp"

#include <cstdint>
#include <string>

namespace arbiter::runtime {

class bundle_writer {
 public:
  /// Creates "<path>.tmp". Throws runtime_failure(ARB_E_IO) naming the file.
  explicit bundle_writer(std::string path);
  /// Removes the temporary file unless close() succeeded.
  ~bundle_writer();
  bundle_writer(const bundle_writer&) = delete;
  bundle_writer& operator=(const bundle_writer&) = delete;

  /// Appends one value; data holds info.nbytes bytes (may be null when 0). Throws
  /// runtime_failure(ARB_E_ARG) for an inconsistent description, ARB_E_IO on a write error.
  void add(const value_info& info, const void* data);

  /// Writes the count, flushes and renames onto the final path. Throws runtime_failure(ARB_E_IO),
  /// also after an add whose write failed (the temporary file is then removed, no bundle appears).
  void close();

 private:
  void write(const void* bytes, uint64_t nbytes);
  [[noreturn]] void io_fail(const std::string& what, int error);

  std::string m_path;
  std::string m_tmp_path;
  int m_fd = -1;
  uint64_t m_offset = 0;
  uint32_t m_count = 0;
  bool m_closed = false;
  bool m_broken = false; ///< a write failed: close() refuses
};

} // namespace arbiter::runtime
