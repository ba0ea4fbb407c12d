// Every read of evaluations, and the listings for the web pages and exports. One row reader, one
// measurement reader and one finding reader serve them all, each over a WHERE clause: one
// evaluation, a campaign's, or one problem's in a campaign cost the same few statements whatever
// their count. Nothing here writes.
#include "detail/store_sqlite.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <unordered_map>

namespace arbiter::store {

namespace {

[[noreturn]] void unsupported(std::string_view what) {
  ARB_THROW(store_error, fmt::format("{}: not supported by this store", what));
}

} // namespace

std::vector<hardware_view> store::hardware_list() { unsupported("hardware_list"); }
std::optional<campaign_record> store::campaign(std::int64_t) { unsupported("campaign"); }
std::vector<problem_view> store::campaign_problems(std::int64_t) { unsupported("campaign_problems"); }
std::optional<problem_view> store::campaign_problem(std::int64_t, const std::string&) { unsupported("campaign_problem"); }
std::vector<evaluation_row> store::evaluation_rows(std::int64_t) { unsupported("evaluation_rows"); }
std::vector<evaluation_detail> store::problem_evaluations(std::int64_t, const std::string&) {
  unsupported("problem_evaluations");
}
std::int64_t store::data_version() { unsupported("data_version"); }
void store::rejudge_evaluation(std::int64_t, const evaluation_result&) { unsupported("rejudge_evaluation"); }

} // namespace arbiter::store

namespace arbiter::store::detail {

namespace {

// An evaluation with what identifies it; WHERE clauses below name these aliases.
constexpr std::string_view k_evaluation_joins =
    "FROM evaluation e JOIN solution s ON s.id = e.solution_id JOIN problem p ON p.id = s.problem_id "
    "JOIN model m ON m.id = s.model_id";
// The columns evaluation_from_row reads, in its order; a reader may select more after them.
constexpr std::string_view k_row_columns =
    "e.id, e.solution_id, p.key, m.name, m.org, s.sample, e.status, e.verdict, e.reason, e.speedup, e.wall_s, "
    "s.path, s.hash, s.meta_json, COALESCE(e.finished_at, ''), e.guard_version";
constexpr int k_row_column_count = 16;
constexpr std::string_view k_row_order = "ORDER BY m.name, p.key, s.sample, e.id";

std::optional<verdict> verdict_at(const statement& row, int column, std::int64_t evaluation_id) {
  if (row.is_null(column)) return std::nullopt; // running: no verdict yet
  const std::string name = row.get_text(column);
  const auto v = verdict_from_string(name);
  if (!v) ARB_THROW(store_error, fmt::format("evaluation {} has unknown verdict '{}'", evaluation_id, name));
  return v;
}

evaluation_row evaluation_from_row(const statement& row) {
  evaluation_row e;
  e.id = row.get_int64(0);
  e.solution_id = row.get_int64(1);
  e.problem = row.get_text(2);
  e.model = row.get_text(3);
  e.org = row.get_text(4);
  e.sample = static_cast<int>(row.get_int64(5));
  e.status = row.get_text(6);
  e.v = verdict_at(row, 7, e.id);
  e.reason = row.get_text(8);
  e.speedup = row.get_optional_double(9);
  e.wall_s = row.get_double(10);
  e.solution_path = row.get_text(11);
  e.solution_hash = row.get_text(12);
  e.meta_json = row.get_text(13);
  e.finished_at = row.get_text(14);
  e.guard_version = row.get_text(15);
  return e;
}

/// The evaluations `where` (over e, s, p, m) picks once bound to args, by model, problem, sample.
template <typename... Args>
std::vector<evaluation_row> rows_where(database& db, std::string_view where, std::string what, const Args&... args) {
  statement query(db, fmt::format("SELECT {} {} WHERE {} {}", k_row_columns, k_evaluation_joins, where, k_row_order),
                  std::move(what));
  query.bind_all(args...);
  std::vector<evaluation_row> out;
  while (query.step()) out.push_back(evaluation_from_row(query));
  return out;
}

// A child table of evaluation (measurement, finding): its columns, in the order from_row reads them.
template <typename record>
struct child_table {
  std::string_view name;
  std::string_view columns;
  int column_count;
  record (*from_row)(const statement&);
};

measurement_record measurement_from_row(const statement& row) {
  measurement_record m;
  m.shape = row.get_text(0);
  m.role = row.get_text(1);
  m.baseline = row.get_text(2);
  m.clock = row.get_text(3);
  m.median_ms = row.get_double(4);
  m.p10_ms = row.get_double(5);
  m.p90_ms = row.get_double(6);
  m.mean_ms = row.get_double(7);
  m.samples = row.get_int64(8);
  m.rel_noise = row.get_double(9);
  m.speedup = row.get_optional_double(10);
  m.method = row.get_text(11);
  m.host_median_ms = row.get_optional_double(12);
  m.throttled = row.get_int64(13);
  m.sm_clock_mhz = row.get_optional_double(14);
  m.power_capped = row.get_int64(15);
  return m;
}

constexpr child_table<measurement_record> k_measurements{
    "measurement",
    "x.shape, x.role, x.baseline, x.clock, x.median_ms, x.p10_ms, x.p90_ms, x.mean_ms, x.samples, x.rel_noise, "
    "x.speedup, x.method, x.host_median_ms, x.throttled, x.sm_clock_mhz, x.power_capped",
    16, measurement_from_row};

// Evidence is stored as JSON, as migration 1 declared the column: {"text": ..., "source": ...}.

finding_record finding_from_row(const statement& row) {
  finding_record f{row.get_text(0), row.get_text(1), row.get_text(2), ""};
  const auto evidence = nlohmann::json::parse(f.evidence, nullptr, false);
  if (evidence.is_object()) {
    f.evidence = evidence.value("text", f.evidence);
    f.source = evidence.value("source", "");
  }
  return f;
}

constexpr child_table<finding_record> k_findings{"finding", "x.pattern, x.severity, x.evidence", 3, finding_from_row};

template <typename record>
using by_evaluation = std::unordered_map<std::int64_t, std::vector<record>>;

/// The rows of `table` (in insertion order) of the evaluations `where` picks, by evaluation id.
template <typename record, typename... Args>
by_evaluation<record> children_where(database& db, const child_table<record>& table, std::string_view where, std::string what,
                                     const Args&... args) {
  statement query(db,
                  fmt::format("SELECT {}, x.evaluation_id FROM {} x WHERE x.evaluation_id IN (SELECT e.id {} WHERE {}) "
                              "ORDER BY x.evaluation_id, x.id",
                              table.columns, table.name, k_evaluation_joins, where),
                  std::move(what));
  query.bind_all(args...);
  by_evaluation<record> out;
  while (query.step()) out[query.get_int64(table.column_count)].push_back(table.from_row(query));
  return out;
}

// The problems campaign ?1 covers: registered with add_campaign_problems, or one of its evaluations
// is for. Per problem row, so that a problem costs two index probes whatever the evaluation count.
constexpr std::string_view k_covered_by_campaign =
    "(EXISTS (SELECT 1 FROM campaign_problem cp WHERE cp.campaign_id = ?1 AND cp.problem_id = p.id) OR "
    "EXISTS (SELECT 1 FROM solution s JOIN evaluation e ON e.solution_id = s.id "
    "WHERE s.problem_id = p.id AND e.campaign_id = ?1))";

/// The problems campaign ?1 covers that `where` (over p) picks, one per key: the newest row
/// (a problem whose content changed has several rows under one key). Ordered by key.
template <typename... Args>
std::vector<problem_view> problems_where(database& db, std::string_view where, std::string what, const Args&... args) {
  statement query(db,
                  fmt::format("SELECT p.id, p.suite, p.key, p.hash, p.title, p.level, p.json FROM problem p "
                              "WHERE {} AND {} ORDER BY p.key, p.id DESC",
                              where, k_covered_by_campaign),
                  std::move(what));
  query.bind_all(args...);
  std::vector<problem_view> out;
  while (query.step()) {
    if (!out.empty() && out.back().record.key == query.get_text(2)) continue; // an older row of that key
    problem_view view;
    view.id = query.get_int64(0);
    view.record = {
        query.get_text(1), query.get_text(2), query.get_text(3), query.get_text(4), static_cast<int>(query.get_int64(5)),
        query.get_text(6)};
    out.push_back(std::move(view));
  }
  return out;
}

hardware_view hardware_from_row(const statement& row) {
  hardware_view view;
  view.id = row.get_int64(0);
  hardware_record& hw = view.record;
  hw.fingerprint = row.get_text(1);
  hw.device = row.get_text(2);
  hw.gpu_name = row.get_text(3);
  hw.sm_count = static_cast<int>(row.get_int64(4));
  hw.l2_bytes = row.get_int64(5);
  hw.memory_bytes = row.get_int64(6);
  hw.driver = row.get_text(7);
  hw.cuda = row.get_text(8);
  hw.torch = row.get_text(9);
  hw.python = row.get_text(10);
  hw.host = row.get_text(11);
  hw.json = row.get_text(12);
  view.created_at = row.get_text(13);
  return view;
}

} // namespace

std::vector<evaluation_row> sqlite_store::evaluation_rows(std::int64_t campaign_id) {
  return rows_where(m_db, "e.campaign_id = ?", fmt::format("list evaluations of campaign {}", campaign_id), campaign_id);
}

std::vector<evaluation_detail> sqlite_store::problem_evaluations(std::int64_t campaign_id, const std::string& problem_key) {
  const std::string what = fmt::format("read evaluations of problem {} in campaign {}", problem_key, campaign_id);
  // By solution, so that the plan starts from the problem's solutions, not the campaign's evaluations.
  constexpr std::string_view where = "e.campaign_id = ?1 AND e.solution_id IN (SELECT s2.id FROM solution s2 "
                                     "JOIN problem p2 ON p2.id = s2.problem_id WHERE p2.key = ?2)";
  auto measurements = children_where(m_db, k_measurements, where, what + ": measurements", campaign_id, problem_key);
  auto findings = children_where(m_db, k_findings, where, what + ": findings", campaign_id, problem_key);
  std::vector<evaluation_detail> out;
  for (auto& row : rows_where(m_db, where, what, campaign_id, problem_key)) {
    const std::int64_t id = row.id;
    out.push_back({std::move(row), std::move(measurements[id]), std::move(findings[id])});
  }
  return out;
}

std::optional<evaluation_view> sqlite_store::evaluation(std::int64_t evaluation_id) {
  const std::string what = fmt::format("read evaluation {}", evaluation_id);
  statement query(m_db,
                  fmt::format("SELECT {}, e.campaign_id, c.name, p.suite, e.details_json, e.artifacts_dir, e.started_at, "
                              "COALESCE(f.facts_json, '') {} JOIN campaign c ON c.id = e.campaign_id "
                              "LEFT JOIN solution_facts f ON f.solution_id = e.solution_id WHERE e.id = ?",
                              k_row_columns, k_evaluation_joins),
                  what);
  query.bind_all(evaluation_id);
  if (!query.step()) return std::nullopt;
  const evaluation_row row = evaluation_from_row(query);
  constexpr int extra = k_row_column_count;
  evaluation_view view;
  view.id = row.id;
  view.campaign_id = query.get_int64(extra);
  view.campaign = query.get_text(extra + 1);
  view.suite = query.get_text(extra + 2);
  view.problem = row.problem;
  view.model = row.model;
  view.sample = row.sample;
  view.solution_path = row.solution_path;
  view.solution_hash = row.solution_hash;
  view.status = row.status;
  // A running evaluation has no verdict yet; the record's default (crashed) stands until it finishes.
  if (row.v) view.result.result.v = *row.v;
  view.result.result.reason = row.reason;
  view.result.speedup = row.speedup;
  view.result.wall_s = row.wall_s;
  view.result.details_json = query.get_text(extra + 3);
  view.result.artifacts_dir = query.get_text(extra + 4);
  view.started_at = query.get_text(extra + 5);
  view.finished_at = row.finished_at;
  view.result.guard_version = row.guard_version;
  view.result.facts_json = query.get_text(extra + 6);
  view.result.measurements =
      std::move(children_where(m_db, k_measurements, "e.id = ?", what + ": measurements", view.id)[view.id]);
  view.result.findings = std::move(children_where(m_db, k_findings, "e.id = ?", what + ": findings", view.id)[view.id]);
  return view;
}

std::vector<result_row> sqlite_store::results(std::int64_t campaign_id) {
  statement query(m_db,
                  fmt::format("SELECT e.id, m.name, p.key, s.sample, e.verdict, e.speedup {} "
                              "WHERE e.campaign_id = ? AND e.status = 'done' {}",
                              k_evaluation_joins, k_row_order),
                  fmt::format("read results of campaign {}", campaign_id));
  query.bind_all(campaign_id);
  std::vector<result_row> out;
  while (query.step()) {
    const std::int64_t id = query.get_int64(0);
    const auto v = verdict_at(query, 4, id);
    if (!v) ARB_THROW(store_error, fmt::format("evaluation {} is done without a verdict", id));
    out.push_back({query.get_text(1), query.get_text(2), static_cast<int>(query.get_int64(3)), *v, query.get_optional_double(5)});
  }
  return out;
}

std::int64_t sqlite_store::problem_count(std::int64_t campaign_id) {
  statement query(m_db, fmt::format("SELECT COUNT(DISTINCT p.key) FROM problem p WHERE {}", k_covered_by_campaign),
                  fmt::format("count problems of campaign {}", campaign_id));
  query.bind_all(campaign_id);
  return query.step() ? query.get_int64(0) : 0;
}

std::vector<problem_view> sqlite_store::campaign_problems(std::int64_t campaign_id) {
  return problems_where(m_db, "1", fmt::format("list problems of campaign {}", campaign_id), campaign_id);
}

std::optional<problem_view> sqlite_store::campaign_problem(std::int64_t campaign_id, const std::string& key) {
  auto found =
      problems_where(m_db, "p.key = ?2", fmt::format("read problem {} of campaign {}", key, campaign_id), campaign_id, key);
  if (found.empty()) return std::nullopt;
  return std::move(found.front());
}

std::vector<hardware_view> sqlite_store::hardware_list() {
  statement query(m_db,
                  "SELECT id, fingerprint, device, gpu_name, sm_count, l2_bytes, memory_bytes, driver, cuda, torch, "
                  "python, host, json, created_at FROM hardware ORDER BY id",
                  "list hardware");
  std::vector<hardware_view> out;
  while (query.step()) out.push_back(hardware_from_row(query));
  return out;
}

std::int64_t sqlite_store::data_version() {
  statement query(m_db, "PRAGMA data_version", "read data_version");
  return query.step() ? query.get_int64(0) : 0;
}

} // namespace arbiter::store::detail
