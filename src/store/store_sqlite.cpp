// The SQLite store: connection, catalog upserts and campaigns. Evaluations live in
// store_sqlite_evaluations.cpp.
#include "detail/store_sqlite.hpp"

#include "detail/migrations.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <charconv>

namespace arbiter::store::detail {

namespace {

constexpr std::string_view k_campaign_columns =
    "SELECT id, name, suite, device, COALESCE(hardware_id, 0), config_json, seeds_json, status, created_at "
    "FROM campaign ";

/// Seeds are u64; SQLite integers are i64, so they are stored as JSON decimal strings.
std::string seeds_to_json(const std::vector<std::uint64_t>& seeds) {
  nlohmann::json array = nlohmann::json::array();
  for (std::uint64_t seed : seeds) array.push_back(std::to_string(seed));
  return array.dump();
}

std::vector<std::uint64_t> seeds_from_json(const std::string& text, const std::string& campaign) {
  const auto bad = [&](const std::string& why) {
    ARB_THROW(store_error, fmt::format("campaign {}: seeds_json {}: {}", campaign, why, text));
  };
  const nlohmann::json array = nlohmann::json::parse(text, nullptr, false);
  if (!array.is_array()) bad("is not a JSON array");
  std::vector<std::uint64_t> seeds;
  for (const auto& item : array) {
    if (!item.is_string()) bad("holds a non-string seed");
    const std::string& digits = item.get_ref<const std::string&>();
    std::uint64_t seed = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), seed);
    if (ec != std::errc() || end != digits.data() + digits.size()) bad("holds a seed that is not a u64");
    seeds.push_back(seed);
  }
  return seeds;
}

campaign_record campaign_from_row(const statement& row) {
  campaign_record c;
  c.id = row.get_int64(0);
  c.name = row.get_text(1);
  c.suite = row.get_text(2);
  c.device = row.get_text(3);
  c.hardware_id = row.get_int64(4);
  c.config_json = row.get_text(5);
  c.seeds = seeds_from_json(row.get_text(6), c.name);
  c.status = row.get_text(7);
  c.created_at = row.get_text(8);
  return c;
}

std::string or_default(const std::string& value, const char* fallback) { return value.empty() ? fallback : value; }

} // namespace

sqlite_store::sqlite_store(const std::string& path) : m_db(path) { migrate(m_db); }

std::int64_t sqlite_store::upsert_hardware(const hardware_record& hw) {
  statement insert(m_db,
                   "INSERT INTO hardware(fingerprint, device, gpu_name, sm_count, l2_bytes, memory_bytes, driver, "
                   "cuda, torch, python, host, json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?) "
                   "ON CONFLICT(fingerprint) DO NOTHING",
                   "insert hardware " + hw.fingerprint);
  insert.bind_all(hw.fingerprint, hw.device, hw.gpu_name, hw.sm_count, hw.l2_bytes, hw.memory_bytes, hw.driver, hw.cuda, hw.torch,
                  hw.python, hw.host, or_default(hw.json, "{}"));
  insert.run();
  return find_id("SELECT id FROM hardware WHERE fingerprint = ?", "find hardware " + hw.fingerprint, hw.fingerprint);
}

void sqlite_store::merge_hardware_json(std::int64_t hardware_id, const std::string& object_json) {
  const std::string what = fmt::format("hardware {}: update json", hardware_id);
  const nlohmann::json update = nlohmann::json::parse(object_json, nullptr, false);
  if (!update.is_object()) ARB_THROW(store_error, what + ": expected a JSON object, found: " + object_json.substr(0, 80));
  transaction tx(m_db, what);
  statement query(m_db, "SELECT json FROM hardware WHERE id = ?", what);
  query.bind_all(hardware_id);
  if (!query.step()) ARB_THROW(store_error, what + ": no such hardware row (" + m_db.path() + ")");
  nlohmann::json stored = nlohmann::json::parse(query.get_text(0), nullptr, false);
  if (!stored.is_object()) stored = nlohmann::json::object(); // a row written by hand; the doctor writes objects
  stored.update(update);
  statement write(m_db, "UPDATE hardware SET json = ? WHERE id = ?", what);
  write.bind_all(stored.dump(), hardware_id).run();
  tx.commit();
}

std::int64_t sqlite_store::upsert_problem(const problem_record& problem) {
  const std::string what = fmt::format("problem {}/{}", problem.suite, problem.key);
  statement insert(m_db,
                   "INSERT INTO problem(suite, key, hash, title, level, json) VALUES (?,?,?,?,?,?) "
                   "ON CONFLICT(suite, key, hash) DO NOTHING",
                   "insert " + what);
  insert.bind_all(problem.suite, problem.key, problem.hash, problem.title, problem.level, or_default(problem.json, "{}"));
  insert.run();
  return find_id("SELECT id FROM problem WHERE suite = ? AND key = ? AND hash = ?", "find " + what, problem.suite, problem.key,
                 problem.hash);
}

std::int64_t sqlite_store::upsert_model(const std::string& name, const std::string& org) {
  // An org learned later (from a meta.json) fills in one that was unknown; a known one stays.
  statement insert(m_db,
                   "INSERT INTO model(name, org) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET org = excluded.org "
                   "WHERE model.org = '' AND excluded.org <> ''",
                   "insert model " + name);
  insert.bind_all(name, org).run();
  return find_id("SELECT id FROM model WHERE name = ?", "find model " + name, name);
}

std::int64_t sqlite_store::upsert_solution(std::int64_t problem_id, std::int64_t model_id, const solution_record& solution) {
  const std::string what = fmt::format("solution {} sample {} ({})", solution.model, solution.sample, solution.path);
  // Same content, same row; the path and metadata follow the latest catalog scan.
  statement insert(m_db,
                   "INSERT INTO solution(problem_id, model_id, sample, hash, path, meta_json) VALUES (?,?,?,?,?,?) "
                   "ON CONFLICT(problem_id, model_id, sample, hash) DO UPDATE SET path = excluded.path, "
                   "meta_json = excluded.meta_json",
                   "insert " + what);
  insert.bind_all(problem_id, model_id, solution.sample, solution.hash, solution.path, or_default(solution.meta_json, "{}"));
  insert.run();
  return find_id("SELECT id FROM solution WHERE problem_id = ? AND model_id = ? AND sample = ? AND hash = ?", "find " + what,
                 problem_id, model_id, solution.sample, solution.hash);
}

campaign_record sqlite_store::open_campaign(const campaign_record& wanted) {
  transaction tx(m_db, "open campaign " + wanted.name);
  if (auto existing = find_campaign(wanted.name)) {
    tx.commit();
    return *existing;
  }
  statement insert(m_db,
                   "INSERT INTO campaign(name, suite, device, hardware_id, config_json, seeds_json, status) "
                   "VALUES (?,?,?,?,?,?,?)",
                   "create campaign " + wanted.name);
  const std::optional<std::int64_t> hardware =
      wanted.hardware_id > 0 ? std::optional<std::int64_t>(wanted.hardware_id) : std::nullopt;
  insert.bind_all(wanted.name, wanted.suite, wanted.device, hardware, or_default(wanted.config_json, "{}"),
                  seeds_to_json(wanted.seeds), or_default(wanted.status, "running"));
  insert.run();
  auto created = find_campaign(wanted.name);
  if (!created) ARB_THROW(store_error, "campaign " + wanted.name + " missing after insert");
  tx.commit();
  return *created;
}

void sqlite_store::set_campaign_status(std::int64_t campaign_id, const std::string& status) {
  const std::string what = fmt::format("set status of campaign {} to {}", campaign_id, status);
  statement update(m_db, "UPDATE campaign SET status = ? WHERE id = ?", what);
  update.bind_all(status, campaign_id).run();
  if (m_db.changes() == 0) ARB_THROW(store_error, what + ": no such campaign");
}

std::optional<campaign_record> sqlite_store::find_campaign(const std::string& name) {
  statement query(m_db, std::string(k_campaign_columns) + "WHERE name = ?", "find campaign " + name);
  query.bind_all(name);
  if (!query.step()) return std::nullopt;
  return campaign_from_row(query);
}

std::optional<campaign_record> sqlite_store::campaign(std::int64_t campaign_id) {
  statement query(m_db, std::string(k_campaign_columns) + "WHERE id = ?", fmt::format("find campaign {}", campaign_id));
  query.bind_all(campaign_id);
  if (!query.step()) return std::nullopt;
  return campaign_from_row(query);
}

std::vector<campaign_record> sqlite_store::campaigns() {
  // created_at has one-second resolution; the id breaks ties in creation order.
  statement query(m_db, std::string(k_campaign_columns) + "ORDER BY created_at DESC, id DESC", "list campaigns");
  std::vector<campaign_record> out;
  while (query.step()) out.push_back(campaign_from_row(query));
  return out;
}

void sqlite_store::add_campaign_problems(std::int64_t campaign_id, const std::vector<std::int64_t>& problem_ids) {
  const std::string what = fmt::format("add problems to campaign {}", campaign_id);
  transaction tx(m_db, what);
  statement insert(m_db, "INSERT OR IGNORE INTO campaign_problem(campaign_id, problem_id) VALUES (?, ?)", what);
  for (std::int64_t problem_id : problem_ids) {
    insert.bind_all(campaign_id, problem_id).run();
    insert.reset();
  }
  tx.commit();
}

} // namespace arbiter::store::detail

namespace arbiter::store {

std::unique_ptr<store> open_store(const std::string& location) {
  if (location.starts_with("postgresql://") || location.starts_with("postgres://"))
    ARB_THROW(config_error, "PostgreSQL is not supported in this build (store location " + location + ")");
  if (location.empty()) ARB_THROW(config_error, "store location is empty; expected a SQLite file path");
  return std::make_unique<detail::sqlite_store>(location);
}

} // namespace arbiter::store
