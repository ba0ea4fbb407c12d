#pragma once
/// Database connections for the server's worker threads: a SQLite connection serves one thread at
/// a time, so each request leases one and gives it back. All of them only read.
#include "arbiter/store/store.hpp"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace arbiter::server::detail {

class store_pool {
 public:
  /// Does not open anything yet; the first lease does.
  explicit store_pool(std::string path) : m_path(std::move(path)) {}

  class lease {
   public:
    lease(store_pool& pool, std::unique_ptr<store::store> db) : m_pool(pool), m_db(std::move(db)) {}
    ~lease() { m_pool.give_back(std::move(m_db)); }
    lease(const lease&) = delete;
    lease& operator=(const lease&) = delete;
    store::store& operator*() { return *m_db; }
    store::store* operator->() { return m_db.get(); }

   private:
    store_pool& m_pool;
    std::unique_ptr<store::store> m_db;
  };

  /// An idle connection, or a new one. Throws store_error when the database cannot be opened.
  lease acquire() {
    {
      std::lock_guard lock(m_mutex);
      if (!m_idle.empty()) {
        auto db = std::move(m_idle.back());
        m_idle.pop_back();
        return {*this, std::move(db)};
      }
    }
    return {*this, store::open_store(m_path)};
  }
  const std::string& path() const { return m_path; }

 private:
  void give_back(std::unique_ptr<store::store> db) {
    if (!db) return;
    std::lock_guard lock(m_mutex);
    m_idle.push_back(std::move(db));
  }

  std::string m_path;
  std::mutex m_mutex;
  std::vector<std::unique_ptr<store::store>> m_idle;
};

} // namespace arbiter::server::detail
