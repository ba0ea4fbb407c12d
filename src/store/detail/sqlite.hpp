#pragma once
/// A tiny RAII layer over the SQLite C API, private to the store. sqlite3.h stays in sqlite.cpp:
/// only the opaque handle types are named here. Every failure throws store_error naming what the
/// statement was for and SQLite's own message.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace arbiter::store::detail {

/// One open connection: WAL journal, 5 s busy timeout, foreign keys enforced.
class database {
 public:
  /// Opens (creating if needed) the file at path. Throws store_error.
  explicit database(const std::string& path);
  ~database();
  database(const database&) = delete;
  database& operator=(const database&) = delete;

  /// Runs one or more statements that return no rows we need; `purpose` names them in errors.
  void exec(std::string_view sql, std::string_view purpose);
  /// Rowid of the last successful INSERT on this connection.
  std::int64_t last_insert_id() const;
  /// Rows changed by the last INSERT, UPDATE or DELETE.
  std::int64_t changes() const;
  const std::string& path() const { return m_path; }
  sqlite3* handle() { return m_db; }

  /// Throws store_error "<purpose>: <sqlite3_errmsg>".
  [[noreturn]] void fail(std::string_view purpose) const;

 private:
  sqlite3* m_db = nullptr;
  std::string m_path;
};

/// A prepared statement. Bind parameters are 1-based, as in SQLite; column indices 0-based.
class statement {
 public:
  statement(database& db, std::string_view sql, std::string purpose);
  ~statement();
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;

  statement& bind(int index, std::int64_t value);
  statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  statement& bind(int index, double value);
  statement& bind(int index, std::string_view value);
  statement& bind(int index, const std::string& value) { return bind(index, std::string_view(value)); }
  statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  statement& bind(int index, std::nullptr_t);
  statement& bind(int index, const std::optional<double>& value);
  statement& bind(int index, const std::optional<std::int64_t>& value);

  /// Binds the arguments to parameters 1..n in order.
  template <typename... Args>
  statement& bind_all(const Args&... args) {
    int index = 0;
    (bind(++index, args), ...);
    return *this;
  }

  /// Advances one row; false when the statement is done.
  bool step();
  /// Steps to completion, ignoring any rows.
  void run();
  /// Clears the row state and bindings so the statement can run again.
  void reset();

  bool is_null(int column) const;
  std::int64_t get_int64(int column) const;
  double get_double(int column) const;
  std::string get_text(int column) const;
  std::optional<double> get_optional_double(int column) const;

 private:
  database& m_db;
  sqlite3_stmt* m_stmt = nullptr;
  std::string m_purpose;
};

/// BEGIN IMMEDIATE on construction; rolls back on destruction unless commit() ran. Immediate,
/// so two writers queue on the busy timeout instead of failing on a lock upgrade.
class transaction {
 public:
  transaction(database& db, std::string purpose);
  ~transaction();
  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;
  void commit();

 private:
  database& m_db;
  std::string m_purpose;
  bool m_done = false;
};

} // namespace arbiter::store::detail
