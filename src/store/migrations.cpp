#include "detail/migrations.hpp"

#include "arbiter/common/error.hpp"

#include <fmt/format.h>

#include <array>

namespace arbiter::store::detail {

namespace {

// Timestamps are ISO 8601 UTC text, so they sort and read the same in every client.
#define ARB_SQL_NOW "(strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))"

constexpr std::string_view k_initial_schema = R"sql(
CREATE TABLE hardware (
  id           INTEGER PRIMARY KEY,
  fingerprint  TEXT NOT NULL UNIQUE,
  device       TEXT NOT NULL,
  gpu_name     TEXT NOT NULL DEFAULT '',
  sm_count     INTEGER NOT NULL DEFAULT 0,
  l2_bytes     INTEGER NOT NULL DEFAULT 0,
  memory_bytes INTEGER NOT NULL DEFAULT 0,
  driver       TEXT NOT NULL DEFAULT '',
  cuda         TEXT NOT NULL DEFAULT '',
  torch        TEXT NOT NULL DEFAULT '',
  python       TEXT NOT NULL DEFAULT '',
  host         TEXT NOT NULL DEFAULT '',
  json         TEXT NOT NULL DEFAULT '{}',
  created_at   TEXT NOT NULL DEFAULT )sql" ARB_SQL_NOW R"sql(
);

CREATE TABLE problem (
  id         INTEGER PRIMARY KEY,
  suite      TEXT NOT NULL,
  key        TEXT NOT NULL,
  hash       TEXT NOT NULL,
  title      TEXT NOT NULL DEFAULT '',
  level      INTEGER NOT NULL DEFAULT 1,
  json       TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL DEFAULT )sql" ARB_SQL_NOW R"sql(,
  UNIQUE (suite, key, hash)
);

CREATE TABLE model (
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL UNIQUE,
  org        TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL DEFAULT )sql" ARB_SQL_NOW R"sql(
);

CREATE TABLE solution (
  id         INTEGER PRIMARY KEY,
  problem_id INTEGER NOT NULL REFERENCES problem(id),
  model_id   INTEGER NOT NULL REFERENCES model(id),
  sample     INTEGER NOT NULL DEFAULT 0,
  hash       TEXT NOT NULL,
  path       TEXT NOT NULL DEFAULT '',
  meta_json  TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL DEFAULT )sql" ARB_SQL_NOW R"sql(,
  UNIQUE (problem_id, model_id, sample, hash)
);

-- seeds_json: a JSON array of decimal strings; a u64 seed does not fit SQLite's int64.
CREATE TABLE campaign (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE,
  suite       TEXT NOT NULL DEFAULT '',
  device      TEXT NOT NULL DEFAULT '',
  hardware_id INTEGER REFERENCES hardware(id),
  config_json TEXT NOT NULL DEFAULT '{}',
  seeds_json  TEXT NOT NULL DEFAULT '[]',
  status      TEXT NOT NULL DEFAULT 'running',
  created_at  TEXT NOT NULL DEFAULT )sql" ARB_SQL_NOW R"sql(
);

-- The problems a campaign covers, including those no model has a solution for: the
-- denominator of pass@1.
CREATE TABLE campaign_problem (
  campaign_id INTEGER NOT NULL REFERENCES campaign(id) ON DELETE CASCADE,
  problem_id  INTEGER NOT NULL REFERENCES problem(id),
  PRIMARY KEY (campaign_id, problem_id)
);

CREATE TABLE evaluation (
  id            INTEGER PRIMARY KEY,
  campaign_id   INTEGER NOT NULL REFERENCES campaign(id) ON DELETE CASCADE,
  solution_id   INTEGER NOT NULL REFERENCES solution(id),
  status        TEXT NOT NULL CHECK (status IN ('running', 'done')),
  verdict       TEXT,
  reason        TEXT NOT NULL DEFAULT '',
  speedup       REAL,
  wall_s        REAL NOT NULL DEFAULT 0,
  details_json  TEXT NOT NULL DEFAULT '{}',
  artifacts_dir TEXT NOT NULL DEFAULT '',
  started_at    TEXT NOT NULL,
  finished_at   TEXT,
  UNIQUE (campaign_id, solution_id)
);

CREATE TABLE measurement (
  id            INTEGER PRIMARY KEY,
  evaluation_id INTEGER NOT NULL REFERENCES evaluation(id) ON DELETE CASCADE,
  shape         TEXT NOT NULL,
  role          TEXT NOT NULL CHECK (role IN ('candidate', 'baseline')),
  baseline      TEXT NOT NULL DEFAULT '',
  clock         TEXT NOT NULL,
  median_ms     REAL NOT NULL,
  p10_ms        REAL NOT NULL,
  p90_ms        REAL NOT NULL,
  mean_ms       REAL NOT NULL,
  samples       INTEGER NOT NULL,
  rel_noise     REAL NOT NULL,
  speedup       REAL
);
CREATE INDEX measurement_by_evaluation ON measurement(evaluation_id);

CREATE TABLE finding (
  id            INTEGER PRIMARY KEY,
  evaluation_id INTEGER NOT NULL REFERENCES evaluation(id) ON DELETE CASCADE,
  pattern       TEXT NOT NULL,
  severity      TEXT NOT NULL,
  evidence      TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX finding_by_evaluation ON finding(evaluation_id);

CREATE TABLE annotation (
  id            INTEGER PRIMARY KEY,
  evaluation_id INTEGER NOT NULL REFERENCES evaluation(id) ON DELETE CASCADE,
  label         TEXT NOT NULL,
  note          TEXT NOT NULL DEFAULT '',
  created_at    TEXT NOT NULL DEFAULT )sql" ARB_SQL_NOW R"sql(
);
CREATE INDEX annotation_by_evaluation ON annotation(evaluation_id);
)sql";

// Static facts per solution (python -m arbiter_runner facts), read by the guard and by people.
constexpr std::string_view k_solution_facts = R"sql(
CREATE TABLE solution_facts (
  solution_id INTEGER PRIMARY KEY REFERENCES solution(id) ON DELETE CASCADE,
  facts_json  TEXT NOT NULL,
  created_at  TEXT NOT NULL DEFAULT )sql" ARB_SQL_NOW R"sql(
);
)sql";

// How each measurement was taken (docs/measurement.md): the clock's method, the host latency
// beside the device time, and the samples discarded for throttling.
constexpr std::string_view k_measurement_method = R"sql(
ALTER TABLE measurement ADD COLUMN method TEXT NOT NULL DEFAULT '';
ALTER TABLE measurement ADD COLUMN host_median_ms REAL;
ALTER TABLE measurement ADD COLUMN throttled INTEGER NOT NULL DEFAULT 0;
)sql";

// The clock state each measurement was taken in: the median SM clock of its samples and how many
// of them ran under the software power cap (docs/measurement.md, "Sampling").
constexpr std::string_view k_measurement_clock_state = R"sql(
ALTER TABLE measurement ADD COLUMN sm_clock_mhz REAL;
ALTER TABLE measurement ADD COLUMN power_capped INTEGER NOT NULL DEFAULT 0;
)sql";

// The guard version each evaluation was judged under (docs/guard.md, "Guard version and
// re-judging"); '' for evaluations judged before it was recorded.
constexpr std::string_view k_evaluation_guard_version = R"sql(
ALTER TABLE evaluation ADD COLUMN guard_version TEXT NOT NULL DEFAULT '';
)sql";

#undef ARB_SQL_NOW

// Append only: never edit or renumber a migration that has shipped.
constexpr std::array<migration, 5> k_migrations{{
    {1, "initial schema", k_initial_schema},
    {2, "static facts per solution", k_solution_facts},
    {3, "measurement method, host latency, throttled samples", k_measurement_method},
    {4, "measurement SM clock and power-capped samples", k_measurement_clock_state},
    {5, "guard version per evaluation", k_evaluation_guard_version},
}};

void ensure_migration_table(database& db) {
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations ("
          " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
          "create schema_migrations");
}

void refuse_newer(std::int64_t found, const database& db) {
  const std::int64_t known = k_migrations.back().version;
  if (found <= known) return;
  ARB_THROW(store_error,
            fmt::format("database {} has schema version {}, newer than this build knows ({}); "
                        "use a newer arbiter",
                        db.path(), found, known));
}

void apply(database& db, const migration& m) {
  const std::string what = fmt::format("migration {} ({})", m.version, m.name);
  transaction tx(db, what);
  // Another process may have applied it while we waited for the write lock.
  if (schema_version(db) >= m.version) return;
  db.exec(m.sql, "apply " + what);
  statement record(db,
                   "INSERT INTO schema_migrations(version, name, applied_at) "
                   "VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
                   "record " + what);
  record.bind_all(m.version, m.name).run();
  tx.commit();
}

} // namespace

std::span<const migration> migrations() { return k_migrations; }

std::int64_t schema_version(database& db) {
  statement query(db, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations", "read schema version");
  return query.step() ? query.get_int64(0) : 0;
}

void migrate(database& db) {
  for (std::size_t idx = 1; idx < k_migrations.size(); ++idx)
    ARB_ASSERT(k_migrations[idx].version == k_migrations[idx - 1].version + 1);
  ensure_migration_table(db);
  const std::int64_t current = schema_version(db);
  refuse_newer(current, db);
  for (const migration& m : k_migrations)
    if (m.version > current) apply(db, m);
}

} // namespace arbiter::store::detail
