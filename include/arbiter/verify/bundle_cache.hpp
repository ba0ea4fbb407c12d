#pragma once
/// The judge's bundle reads, kept for one judgement: a case's expected outputs are compared against
/// the candidate's outputs, its determinism re-run, its timed captures, the poison scan and the
/// float64 check, and at H200 shapes each read is a gigabyte. Files are read once and held, least
/// recently used first out, within a byte budget.
#include "arbiter/verify/compare.hpp"

#include <cstdint>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace arbiter::verify {

using bundle = std::vector<value>;

struct cache_stats {
  std::int64_t reads = 0;  ///< files read from disk
  std::int64_t reused = 0; ///< requests served from memory
  std::uint64_t bytes_read = 0;
};

class bundle_cache {
 public:
  /// budget_bytes 0 keeps nothing: every request reads its file.
  explicit bundle_cache(std::uint64_t budget_bytes);

  /// The file's values, as read_bundle returns them (and with its io_error when unreadable; a
  /// failed read is not remembered). Safe to call from several threads.
  std::shared_ptr<const bundle> read(const std::filesystem::path& file);

  cache_stats stats() const;

 private:
  struct entry {
    std::shared_ptr<const bundle> values;
    std::uint64_t bytes = 0;
    std::list<std::string>::iterator recency;
  };

  void remember(const std::string& key, std::shared_ptr<const bundle> values, std::uint64_t bytes);

  std::uint64_t m_budget;
  std::uint64_t m_held = 0;
  mutable std::mutex m_mutex;
  std::list<std::string> m_recency; ///< most recent first
  std::unordered_map<std::string, entry> m_entries;
  cache_stats m_stats;
};

/// A quarter of the machine's physical memory (ARBITER_JUDGE_CACHE_MB overrides it; 0 disables).
std::uint64_t default_cache_budget();

/// compare_files with both files read through cache.
check compare_files(const std::filesystem::path& expected, const std::filesystem::path& actual, const catalog::tolerance& tol,
                    bundle_cache& cache);

} // namespace arbiter::verify
