#pragma once
/// Numbered schema migrations. Each is applied once, in version order, in its own transaction,
/// and recorded in schema_migrations(version, name, applied_at).
#include "detail/sqlite.hpp"

#include <cstdint>
#include <span>
#include <string_view>

namespace arbiter::store::detail {

struct migration {
  std::int64_t version;
  std::string_view name;
  std::string_view sql;
};

/// Every migration this build knows, in strictly increasing version order starting at 1.
std::span<const migration> migrations();

/// Highest version recorded in the database; 0 for a fresh one.
std::int64_t schema_version(database& db);

/// Applies every pending migration. Throws store_error when the database was written by a newer
/// arbiter (a version this build does not know) or when a migration fails (it is rolled back).
void migrate(database& db);

} // namespace arbiter::store::detail
