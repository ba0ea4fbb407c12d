// The SQLite store: evaluations, their measurements, and the rows scoring reads.
#include "detail/store_sqlite.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace arbiter::store::detail {

namespace {

constexpr std::string_view k_now = "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')";

verdict verdict_from_column(const statement& row, int column, std::int64_t evaluation_id) {
  const std::string name = row.get_text(column);
  const auto v = verdict_from_string(name);
  if (!v) ARB_THROW(store_error, fmt::format("evaluation {} has unknown verdict '{}'", evaluation_id, name));
  return *v;
}

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
  return m;
}

// Evidence is stored as JSON, as migration 1 declared the column: {"text": ..., "source": ...}.
void insert_findings(database& db, std::int64_t evaluation_id, const std::vector<finding_record>& rows) {
  const std::string what = fmt::format("store findings of evaluation {}", evaluation_id);
  statement clear(db, "DELETE FROM finding WHERE evaluation_id = ?", what);
  clear.bind_all(evaluation_id).run();
  statement insert(db, "INSERT INTO finding(evaluation_id, pattern, severity, evidence) VALUES (?, ?, ?, ?)", what);
  for (const finding_record& f : rows) {
    const std::string evidence = nlohmann::json{{"text", f.evidence}, {"source", f.source}}.dump();
    insert.bind_all(evaluation_id, f.pattern, f.severity, evidence);
    insert.run();
    insert.reset();
  }
}

void save_facts(database& db, std::int64_t evaluation_id, const std::string& facts_json) {
  statement upsert(db,
                   "INSERT INTO solution_facts(solution_id, facts_json) SELECT solution_id, ? FROM evaluation WHERE id = ? "
                   "ON CONFLICT(solution_id) DO UPDATE SET facts_json = excluded.facts_json",
                   fmt::format("store static facts of evaluation {}", evaluation_id));
  upsert.bind_all(facts_json, evaluation_id).run();
}

std::vector<finding_record> read_findings(database& db, std::int64_t evaluation_id) {
  statement query(db, "SELECT pattern, severity, evidence FROM finding WHERE evaluation_id = ? ORDER BY id",
                  fmt::format("read findings of evaluation {}", evaluation_id));
  query.bind_all(evaluation_id);
  std::vector<finding_record> out;
  while (query.step()) {
    finding_record f{query.get_text(0), query.get_text(1), query.get_text(2), ""};
    const auto evidence = nlohmann::json::parse(f.evidence, nullptr, false);
    if (evidence.is_object()) {
      f.evidence = evidence.value("text", f.evidence);
      f.source = evidence.value("source", "");
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::string read_facts(database& db, std::int64_t solution_id) {
  statement query(db, "SELECT facts_json FROM solution_facts WHERE solution_id = ?",
                  fmt::format("read static facts of solution {}", solution_id));
  query.bind_all(solution_id);
  return query.step() ? query.get_text(0) : std::string();
}

} // namespace

std::optional<std::int64_t> sqlite_store::finished_evaluation(std::int64_t campaign_id, std::int64_t solution_id) {
  statement query(m_db,
                  "SELECT id FROM evaluation WHERE campaign_id = ? AND solution_id = ? AND status = 'done'",
                  fmt::format("find finished evaluation of solution {} in campaign {}", solution_id, campaign_id));
  query.bind_all(campaign_id, solution_id);
  if (!query.step()) return std::nullopt;
  return query.get_int64(0);
}

std::int64_t sqlite_store::begin_evaluation(std::int64_t campaign_id, std::int64_t solution_id) {
  const std::string what = fmt::format("begin evaluation of solution {} in campaign {}", solution_id, campaign_id);
  transaction tx(m_db, what);
  statement query(m_db, "SELECT id, status FROM evaluation WHERE campaign_id = ? AND solution_id = ?", what);
  query.bind_all(campaign_id, solution_id);
  if (!query.step()) {
    statement insert(m_db,
                     fmt::format("INSERT INTO evaluation(campaign_id, solution_id, status, started_at) "
                                 "VALUES (?, ?, 'running', {})",
                                 k_now),
                     what);
    insert.bind_all(campaign_id, solution_id).run();
    const std::int64_t id = m_db.last_insert_id();
    tx.commit();
    return id;
  }
  const std::int64_t id = query.get_int64(0);
  if (query.get_text(1) == "done") ARB_THROW(store_error, fmt::format("{}: evaluation {} is already done", what, id));
  // An interrupted attempt: whatever it wrote is discarded, the row starts over.
  statement clear_measurements(m_db, "DELETE FROM measurement WHERE evaluation_id = ?", what + ": clear measurements");
  clear_measurements.bind_all(id).run();
  statement clear_findings(m_db, "DELETE FROM finding WHERE evaluation_id = ?", what + ": clear findings");
  clear_findings.bind_all(id).run();
  statement restart(m_db,
                    fmt::format("UPDATE evaluation SET status = 'running', verdict = NULL, reason = '', speedup = NULL, "
                                "wall_s = 0, details_json = '{{}}', artifacts_dir = '', started_at = {}, "
                                "finished_at = NULL WHERE id = ?",
                                k_now),
                    what + ": restart");
  restart.bind_all(id).run();
  tx.commit();
  return id;
}

void sqlite_store::finish_evaluation(std::int64_t evaluation_id, const evaluation_result& result) {
  const std::string what = fmt::format("finish evaluation {}", evaluation_id);
  transaction tx(m_db, what);
  statement update(m_db,
                   fmt::format("UPDATE evaluation SET status = 'done', verdict = ?, reason = ?, speedup = ?, "
                               "wall_s = ?, details_json = ?, artifacts_dir = ?, finished_at = {} WHERE id = ?",
                               k_now),
                   what);
  update.bind_all(to_string(result.result.v), result.result.reason, result.speedup, result.wall_s,
                  result.details_json.empty() ? std::string("{}") : result.details_json, result.artifacts_dir,
                  evaluation_id);
  update.run();
  if (m_db.changes() == 0) ARB_THROW(store_error, what + ": no such evaluation");
  statement clear(m_db, "DELETE FROM measurement WHERE evaluation_id = ?", what + ": clear measurements");
  clear.bind_all(evaluation_id).run();
  insert_measurements(evaluation_id, result.measurements);
  insert_findings(m_db, evaluation_id, result.findings);
  if (!result.facts_json.empty()) save_facts(m_db, evaluation_id, result.facts_json);
  tx.commit();
}

void sqlite_store::insert_measurements(std::int64_t evaluation_id, const std::vector<measurement_record>& rows) {
  statement insert(m_db,
                   "INSERT INTO measurement(evaluation_id, shape, role, baseline, clock, median_ms, p10_ms, p90_ms, "
                   "mean_ms, samples, rel_noise, speedup, method, host_median_ms, throttled) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   fmt::format("insert measurement of evaluation {}", evaluation_id));
  for (const measurement_record& m : rows) {
    insert.bind_all(evaluation_id, m.shape, m.role, m.baseline, m.clock, m.median_ms, m.p10_ms, m.p90_ms, m.mean_ms,
                    m.samples, m.rel_noise, m.speedup, m.method, m.host_median_ms, m.throttled);
    insert.run();
    insert.reset();
  }
}

std::vector<measurement_record> sqlite_store::read_measurements(std::int64_t evaluation_id) {
  statement query(m_db,
                  "SELECT shape, role, baseline, clock, median_ms, p10_ms, p90_ms, mean_ms, samples, rel_noise, "
                  "speedup, method, host_median_ms, throttled FROM measurement WHERE evaluation_id = ? ORDER BY id",
                  fmt::format("read measurements of evaluation {}", evaluation_id));
  query.bind_all(evaluation_id);
  std::vector<measurement_record> out;
  while (query.step()) out.push_back(measurement_from_row(query));
  return out;
}

std::optional<evaluation_view> sqlite_store::evaluation(std::int64_t evaluation_id) {
  statement query(m_db,
                  "SELECT e.id, e.campaign_id, c.name, p.suite, p.key, m.name, s.sample, s.path, s.hash, e.status, "
                  "e.verdict, e.reason, e.speedup, e.wall_s, e.details_json, e.artifacts_dir, e.started_at, "
                  "COALESCE(e.finished_at, ''), e.solution_id FROM evaluation e JOIN campaign c ON c.id = e.campaign_id "
                  "JOIN solution s ON s.id = e.solution_id JOIN problem p ON p.id = s.problem_id "
                  "JOIN model m ON m.id = s.model_id WHERE e.id = ?",
                  fmt::format("read evaluation {}", evaluation_id));
  query.bind_all(evaluation_id);
  if (!query.step()) return std::nullopt;
  evaluation_view view;
  view.id = query.get_int64(0);
  view.campaign_id = query.get_int64(1);
  view.campaign = query.get_text(2);
  view.suite = query.get_text(3);
  view.problem = query.get_text(4);
  view.model = query.get_text(5);
  view.sample = static_cast<int>(query.get_int64(6));
  view.solution_path = query.get_text(7);
  view.solution_hash = query.get_text(8);
  view.status = query.get_text(9);
  // A running evaluation has no verdict yet; the record's default (crashed) stands until it finishes.
  if (!query.is_null(10)) view.result.result.v = verdict_from_column(query, 10, view.id);
  view.result.result.reason = query.get_text(11);
  view.result.speedup = query.get_optional_double(12);
  view.result.wall_s = query.get_double(13);
  view.result.details_json = query.get_text(14);
  view.result.artifacts_dir = query.get_text(15);
  view.started_at = query.get_text(16);
  view.finished_at = query.get_text(17);
  view.result.measurements = read_measurements(view.id);
  view.result.findings = read_findings(m_db, view.id);
  view.result.facts_json = read_facts(m_db, query.get_int64(18));
  return view;
}

std::vector<result_row> sqlite_store::results(std::int64_t campaign_id) {
  statement query(m_db,
                  "SELECT e.id, m.name, p.key, s.sample, e.verdict, e.speedup FROM evaluation e "
                  "JOIN solution s ON s.id = e.solution_id JOIN problem p ON p.id = s.problem_id "
                  "JOIN model m ON m.id = s.model_id WHERE e.campaign_id = ? AND e.status = 'done' "
                  "ORDER BY m.name, p.key, s.sample, e.id",
                  fmt::format("read results of campaign {}", campaign_id));
  query.bind_all(campaign_id);
  std::vector<result_row> out;
  while (query.step()) {
    result_row row;
    row.model = query.get_text(1);
    row.problem = query.get_text(2);
    row.sample = static_cast<int>(query.get_int64(3));
    row.v = verdict_from_column(query, 4, query.get_int64(0));
    row.speedup = query.get_optional_double(5);
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<timing_method_count> sqlite_store::timing_methods(std::int64_t campaign_id) {
  statement query(m_db,
                  "SELECT m.role, m.baseline, m.clock, m.method, COUNT(*) FROM measurement m "
                  "JOIN evaluation e ON e.id = m.evaluation_id "
                  "WHERE e.campaign_id = ? AND e.status = 'done' AND e.verdict = 'passed' "
                  "GROUP BY m.role, m.baseline, m.clock, m.method ORDER BY COUNT(*) DESC, m.role, m.method",
                  fmt::format("read timing methods of campaign {}", campaign_id));
  query.bind_all(campaign_id);
  std::vector<timing_method_count> out;
  while (query.step())
    out.push_back({query.get_text(0), query.get_text(1), query.get_text(2), query.get_text(3), query.get_int64(4)});
  return out;
}

std::int64_t sqlite_store::problem_count(std::int64_t campaign_id) {
  statement query(m_db,
                  "SELECT COUNT(DISTINCT key) FROM ("
                  " SELECT p.key FROM campaign_problem cp JOIN problem p ON p.id = cp.problem_id"
                  "  WHERE cp.campaign_id = ?1"
                  " UNION ALL"
                  " SELECT p.key FROM evaluation e JOIN solution s ON s.id = e.solution_id"
                  "  JOIN problem p ON p.id = s.problem_id WHERE e.campaign_id = ?1)",
                  fmt::format("count problems of campaign {}", campaign_id));
  query.bind_all(campaign_id);
  return query.step() ? query.get_int64(0) : 0;
}

} // namespace arbiter::store::detail
