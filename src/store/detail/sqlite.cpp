#include "detail/sqlite.hpp"

#include "arbiter/common/error.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

namespace arbiter::store::detail {

namespace {
constexpr int k_busy_timeout_ms = 5000;
} // namespace

// ---- database ---------------------------------------------------------------------------------

database::database(const std::string& path) : m_path(path) {
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(path.c_str(), &m_db, flags, nullptr) != SQLITE_OK) {
    const std::string message = m_db ? sqlite3_errmsg(m_db) : "out of memory";
    sqlite3_close(m_db);
    m_db = nullptr;
    ARB_THROW(store_error, fmt::format("open database {}: {}", path, message));
  }
  sqlite3_extended_result_codes(m_db, 1);
  sqlite3_busy_timeout(m_db, k_busy_timeout_ms);
  try {
    // journal_mode answers with a row; exec ignores it. WAL lets readers (the web UI, `show`)
    // run while a campaign writes.
    exec("PRAGMA journal_mode = WAL", "enable WAL journal");
    exec("PRAGMA foreign_keys = ON", "enable foreign keys");
    exec("PRAGMA synchronous = NORMAL", "set synchronous mode");
  } catch (...) {
    sqlite3_close(m_db);
    m_db = nullptr;
    throw;
  }
}

database::~database() { sqlite3_close(m_db); }

void database::exec(std::string_view sql, std::string_view purpose) {
  char* message = nullptr;
  const std::string text(sql);
  if (sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, &message) == SQLITE_OK) return;
  const std::string reason = message ? message : sqlite3_errmsg(m_db);
  sqlite3_free(message);
  ARB_THROW(store_error, fmt::format("{}: {} ({})", purpose, reason, m_path));
}

std::int64_t database::last_insert_id() const { return sqlite3_last_insert_rowid(m_db); }

std::int64_t database::changes() const { return sqlite3_changes64(m_db); }

void database::fail(std::string_view purpose) const {
  ARB_THROW(store_error, fmt::format("{}: {} ({})", purpose, sqlite3_errmsg(m_db), m_path));
}

// ---- statement --------------------------------------------------------------------------------

statement::statement(database& db, std::string_view sql, std::string purpose) : m_db(db), m_purpose(std::move(purpose)) {
  const int rc = sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &m_stmt, nullptr);
  if (rc != SQLITE_OK) m_db.fail("prepare " + m_purpose);
}

statement::~statement() { sqlite3_finalize(m_stmt); }

statement& statement::bind(int index, std::int64_t value) {
  if (sqlite3_bind_int64(m_stmt, index, value) != SQLITE_OK) m_db.fail("bind " + m_purpose);
  return *this;
}

statement& statement::bind(int index, double value) {
  if (sqlite3_bind_double(m_stmt, index, value) != SQLITE_OK) m_db.fail("bind " + m_purpose);
  return *this;
}

statement& statement::bind(int index, std::string_view value) {
  const int rc = sqlite3_bind_text64(m_stmt, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK) m_db.fail("bind " + m_purpose);
  return *this;
}

statement& statement::bind(int index, std::nullptr_t) {
  if (sqlite3_bind_null(m_stmt, index) != SQLITE_OK) m_db.fail("bind " + m_purpose);
  return *this;
}

statement& statement::bind(int index, const std::optional<double>& value) {
  return value ? bind(index, *value) : bind(index, nullptr);
}

statement& statement::bind(int index, const std::optional<std::int64_t>& value) {
  return value ? bind(index, *value) : bind(index, nullptr);
}

bool statement::step() {
  const int rc = sqlite3_step(m_stmt);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  m_db.fail(m_purpose);
}

void statement::run() {
  while (step()) {}
}

void statement::reset() {
  sqlite3_reset(m_stmt);
  sqlite3_clear_bindings(m_stmt);
}

bool statement::is_null(int column) const { return sqlite3_column_type(m_stmt, column) == SQLITE_NULL; }

std::int64_t statement::get_int64(int column) const { return sqlite3_column_int64(m_stmt, column); }

double statement::get_double(int column) const { return sqlite3_column_double(m_stmt, column); }

std::string statement::get_text(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, column));
  if (!text) return {};
  return std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column)));
}

std::optional<double> statement::get_optional_double(int column) const {
  if (is_null(column)) return std::nullopt;
  return get_double(column);
}

// ---- transaction ------------------------------------------------------------------------------

transaction::transaction(database& db, std::string purpose) : m_db(db), m_purpose(std::move(purpose)) {
  m_db.exec("BEGIN IMMEDIATE", "begin transaction for " + m_purpose);
}

transaction::~transaction() {
  if (m_done) return;
  // Destructors must not throw; a failed rollback leaves SQLite to roll back on close.
  sqlite3_exec(m_db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void transaction::commit() {
  m_db.exec("COMMIT", "commit " + m_purpose);
  m_done = true;
}

} // namespace arbiter::store::detail
