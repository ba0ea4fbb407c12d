#pragma once
/// Reads a tensor bundle (.arbb). Opening validates every value's header against the file size,
/// so a truncated or corrupt file fails at open with a message naming the file; data is read
/// on demand, so a large bundle is never held in memory twice; a large value in parallel chunks
/// (parallel_io.hpp).
#include "bundle_format.hpp"

#include <string>
#include <vector>

namespace arbiter::runtime {

class bundle_reader {
 public:
  /// Throws runtime_failure: ARB_E_IO if the file cannot be read, ARB_E_FORMAT if it is not a
  /// complete, well-formed bundle; both name the file.
  explicit bundle_reader(std::string path);
  ~bundle_reader();
  bundle_reader(const bundle_reader&) = delete;
  bundle_reader& operator=(const bundle_reader&) = delete;

  int64_t count() const noexcept { return static_cast<int64_t>(m_values.size()); }

  /// Throws runtime_failure(ARB_E_ARG) for an index out of range.
  const value_info& info(int64_t idx) const;

  /// Copies value idx's data into dst, which holds exactly dst_bytes == info(idx).nbytes bytes.
  void copy(int64_t idx, void* dst, uint64_t dst_bytes);

  /// Where value idx's data begins in the file (for a reader that maps the file instead of
  /// copying). Throws runtime_failure(ARB_E_ARG) for an index out of range.
  uint64_t data_offset(int64_t idx) const;

 private:
  struct indexed_value {
    value_info info;
    uint64_t data_offset = 0;
  };

  void index_values(uint32_t count);
  void read_at(uint64_t offset, void* dst, uint64_t nbytes, const char* what);
  [[noreturn]] void format_fail(const std::string& what) const;

  std::string m_path;
  int m_fd = -1;
  uint64_t m_file_bytes = 0;
  std::vector<indexed_value> m_values;
};

} // namespace arbiter::runtime
