#include "arbiter/verify/bundle_cache.hpp"

#include "arbiter/common/error.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace arbiter::verify {

namespace {

std::uint64_t size_of(const bundle& values) {
  std::uint64_t bytes = 0;
  for (const auto& v : values) bytes += v.bytes.size();
  return bytes;
}

} // namespace

bundle_cache::bundle_cache(std::uint64_t budget_bytes) : m_budget(budget_bytes) {}

std::shared_ptr<const bundle> bundle_cache::read(const std::filesystem::path& file) {
  const std::string key = file.lexically_normal().string();
  {
    const std::lock_guard lock(m_mutex);
    if (auto found = m_entries.find(key); found != m_entries.end()) {
      m_recency.splice(m_recency.begin(), m_recency, found->second.recency);
      ++m_stats.reused;
      return found->second.values;
    }
  }
  auto values = std::make_shared<const bundle>(read_bundle(file)); // outside the lock: reads run side by side
  const std::uint64_t bytes = size_of(*values);
  const std::lock_guard lock(m_mutex);
  ++m_stats.reads;
  m_stats.bytes_read += bytes;
  remember(key, values, bytes);
  return values;
}

void bundle_cache::remember(const std::string& key, std::shared_ptr<const bundle> values, std::uint64_t bytes) {
  if (bytes > m_budget || m_entries.contains(key)) return;
  while (m_held + bytes > m_budget && !m_recency.empty()) {
    const auto oldest = m_entries.find(m_recency.back());
    m_held -= oldest->second.bytes;
    m_entries.erase(oldest);
    m_recency.pop_back();
  }
  m_recency.push_front(key);
  m_entries.emplace(key, entry{std::move(values), bytes, m_recency.begin()});
  m_held += bytes;
}

cache_stats bundle_cache::stats() const {
  const std::lock_guard lock(m_mutex);
  return m_stats;
}

std::uint64_t default_cache_budget() {
  if (const char* text = std::getenv("ARBITER_JUDGE_CACHE_MB"); text != nullptr && *text != '\0') {
    char* end = nullptr;
    const unsigned long long mb = std::strtoull(text, &end, 10);
    if (end == nullptr || *end != '\0')
      ARB_THROW(config_error, std::string("ARBITER_JUDGE_CACHE_MB: expected a whole number of MiB, got '") + text + "'");
    return static_cast<std::uint64_t>(mb) << 20;
  }
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size) / 4;
}

} // namespace arbiter::verify
