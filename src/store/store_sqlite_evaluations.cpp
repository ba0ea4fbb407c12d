// The SQLite store: an evaluation's life (begin, restart, finish) and what it writes. The reads
// are in store_sqlite_reads.cpp.
#include "detail/store_sqlite.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace arbiter::store::detail {

namespace {

constexpr std::string_view k_now = "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')";

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

} // namespace

std::optional<std::int64_t> sqlite_store::finished_evaluation(std::int64_t campaign_id, std::int64_t solution_id) {
  statement query(m_db, "SELECT id FROM evaluation WHERE campaign_id = ? AND solution_id = ? AND status = 'done'",
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
                                "wall_s = 0, details_json = '{{}}', artifacts_dir = '', guard_version = '', started_at = {}, "
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
                               "wall_s = ?, details_json = ?, artifacts_dir = ?, guard_version = ?, finished_at = {} "
                               "WHERE id = ?",
                               k_now),
                   what);
  update.bind_all(to_string(result.result.v), result.result.reason, result.speedup, result.wall_s,
                  result.details_json.empty() ? std::string("{}") : result.details_json, result.artifacts_dir,
                  result.guard_version, evaluation_id);
  update.run();
  if (m_db.changes() == 0) ARB_THROW(store_error, what + ": no such evaluation");
  replace_judged_rows(evaluation_id, result, what);
  if (!result.facts_json.empty()) save_facts(m_db, evaluation_id, result.facts_json);
  tx.commit();
}

void sqlite_store::rejudge_evaluation(std::int64_t evaluation_id, const evaluation_result& result) {
  const std::string what = fmt::format("store the new judgement of evaluation {}", evaluation_id);
  transaction tx(m_db, what);
  statement update(m_db,
                   "UPDATE evaluation SET verdict = ?, reason = ?, speedup = ?, details_json = ?, guard_version = ? "
                   "WHERE id = ? AND status = 'done'",
                   what);
  update.bind_all(to_string(result.result.v), result.result.reason, result.speedup,
                  result.details_json.empty() ? std::string("{}") : result.details_json, result.guard_version, evaluation_id);
  update.run();
  if (m_db.changes() == 0) ARB_THROW(store_error, what + ": no finished evaluation with this id");
  replace_judged_rows(evaluation_id, result, what);
  tx.commit();
}

void sqlite_store::replace_judged_rows(std::int64_t evaluation_id, const evaluation_result& result, const std::string& what) {
  statement clear(m_db, "DELETE FROM measurement WHERE evaluation_id = ?", what + ": clear measurements");
  clear.bind_all(evaluation_id).run();
  insert_measurements(evaluation_id, result.measurements);
  insert_findings(m_db, evaluation_id, result.findings);
}

void sqlite_store::insert_measurements(std::int64_t evaluation_id, const std::vector<measurement_record>& rows) {
  statement insert(m_db,
                   "INSERT INTO measurement(evaluation_id, shape, role, baseline, clock, median_ms, p10_ms, p90_ms, "
                   "mean_ms, samples, rel_noise, speedup, method, host_median_ms, throttled, sm_clock_mhz, power_capped) "
                   "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   fmt::format("insert measurement of evaluation {}", evaluation_id));
  for (const measurement_record& m : rows) {
    insert.bind_all(evaluation_id, m.shape, m.role, m.baseline, m.clock, m.median_ms, m.p10_ms, m.p90_ms, m.mean_ms, m.samples,
                    m.rel_noise, m.speedup, m.method, m.host_median_ms, m.throttled, m.sm_clock_mhz, m.power_capped);
    insert.run();
    insert.reset();
  }
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

} // namespace arbiter::store::detail
