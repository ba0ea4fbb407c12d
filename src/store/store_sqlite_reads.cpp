// Reads for the web pages and exports: listings over a whole campaign in one query each, so that a
// page over 10,000 evaluations costs a handful of statements. Nothing here writes.
#include "detail/store_sqlite.hpp"

#include <fmt/format.h>

namespace arbiter::store {

namespace {

[[noreturn]] void unsupported(std::string_view what) {
  ARB_THROW(store_error, fmt::format("{}: not supported by this store", what));
}

} // namespace

std::vector<hardware_view> store::hardware_list() { unsupported("hardware_list"); }
std::optional<campaign_record> store::campaign(std::int64_t) { unsupported("campaign"); }
std::vector<problem_view> store::campaign_problems(std::int64_t) { unsupported("campaign_problems"); }
std::vector<evaluation_row> store::evaluation_rows(std::int64_t) { unsupported("evaluation_rows"); }
std::int64_t store::data_version() { unsupported("data_version"); }

} // namespace arbiter::store

namespace arbiter::store::detail {

namespace {

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

evaluation_row evaluation_from_row(const statement& row) {
  evaluation_row e;
  e.id = row.get_int64(0);
  e.solution_id = row.get_int64(1);
  e.problem = row.get_text(2);
  e.model = row.get_text(3);
  e.org = row.get_text(4);
  e.sample = static_cast<int>(row.get_int64(5));
  e.status = row.get_text(6);
  if (!row.is_null(7)) {
    const std::string name = row.get_text(7);
    e.v = verdict_from_string(name);
    if (!e.v) ARB_THROW(store_error, fmt::format("evaluation {} has unknown verdict '{}'", e.id, name));
  }
  e.reason = row.get_text(8);
  e.speedup = row.get_optional_double(9);
  e.wall_s = row.get_double(10);
  e.solution_path = row.get_text(11);
  e.solution_hash = row.get_text(12);
  e.meta_json = row.get_text(13);
  e.finished_at = row.get_text(14);
  return e;
}

} // namespace

std::vector<hardware_view> sqlite_store::hardware_list() {
  statement query(m_db,
                  "SELECT id, fingerprint, device, gpu_name, sm_count, l2_bytes, memory_bytes, driver, cuda, torch, "
                  "python, host, json, created_at FROM hardware ORDER BY id",
                  "list hardware");
  std::vector<hardware_view> out;
  while (query.step()) out.push_back(hardware_from_row(query));
  return out;
}

std::vector<problem_view> sqlite_store::campaign_problems(std::int64_t campaign_id) {
  // A problem whose content changed has several rows under one key; the newest one names it.
  statement query(m_db,
                  "SELECT p.id, p.suite, p.key, p.hash, p.title, p.level, p.json FROM problem p WHERE p.id IN ("
                  " SELECT MAX(p2.id) FROM problem p2 WHERE p2.id IN ("
                  "  SELECT problem_id FROM campaign_problem WHERE campaign_id = ?1"
                  "  UNION SELECT s.problem_id FROM evaluation e JOIN solution s ON s.id = e.solution_id"
                  "   WHERE e.campaign_id = ?1) GROUP BY p2.key) ORDER BY p.key",
                  fmt::format("list problems of campaign {}", campaign_id));
  query.bind_all(campaign_id);
  std::vector<problem_view> out;
  while (query.step()) {
    problem_view view;
    view.id = query.get_int64(0);
    view.record = {query.get_text(1), query.get_text(2), query.get_text(3), query.get_text(4),
                   static_cast<int>(query.get_int64(5)), query.get_text(6)};
    out.push_back(std::move(view));
  }
  return out;
}

std::vector<evaluation_row> sqlite_store::evaluation_rows(std::int64_t campaign_id) {
  statement query(m_db,
                  "SELECT e.id, e.solution_id, p.key, m.name, m.org, s.sample, e.status, e.verdict, e.reason, "
                  "e.speedup, e.wall_s, s.path, s.hash, s.meta_json, COALESCE(e.finished_at, '') "
                  "FROM evaluation e JOIN solution s ON s.id = e.solution_id JOIN problem p ON p.id = s.problem_id "
                  "JOIN model m ON m.id = s.model_id WHERE e.campaign_id = ? ORDER BY m.name, p.key, s.sample, e.id",
                  fmt::format("list evaluations of campaign {}", campaign_id));
  query.bind_all(campaign_id);
  std::vector<evaluation_row> out;
  while (query.step()) out.push_back(evaluation_from_row(query));
  return out;
}

std::int64_t sqlite_store::data_version() {
  statement query(m_db, "PRAGMA data_version", "read data_version");
  return query.step() ? query.get_int64(0) : 0;
}

} // namespace arbiter::store::detail
