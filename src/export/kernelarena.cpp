// The KernelArena layout: index.json (problems, hardware, one entry per evaluated solution with
// its verdict and timings) beside solutions/<problem>/<model>[/<sample>]/ holding the sources and
// meta.json. Importing it recreates the campaign's rows, so the leaderboard comes out the same.
#include "arbiter/export/export.hpp"

#include "arbiter/server/views.hpp"
#include "arbiter/store/measurement_json.hpp"

#include <fmt/format.h>

#include <fstream>

namespace arbiter::exporting {

namespace {

namespace fs = std::filesystem;
using server::json;

constexpr int k_index_version = 1;

json hardware_json(store::store& db, std::int64_t hardware_id) {
  for (const auto& hw : db.hardware_list()) {
    if (hw.id != hardware_id) continue;
    const auto& r = hw.record;
    return {{"fingerprint", r.fingerprint}, {"device", r.device},     {"gpu_name", r.gpu_name},
            {"sm_count", r.sm_count},       {"l2_bytes", r.l2_bytes}, {"memory_bytes", r.memory_bytes},
            {"driver", r.driver},           {"cuda", r.cuda},         {"torch", r.torch},
            {"python", r.python},           {"host", r.host},         {"json", r.json}};
  }
  return nullptr;
}

json measurements_json(const std::vector<store::measurement_record>& ms) {
  json out = json::array();
  for (const auto& m : ms) out.push_back(store::measurement_json(m));
  return out;
}

std::string solution_folder(const store::evaluation_row& e) {
  return fmt::format("solutions/{}/{}{}", e.problem, e.model, e.sample ? "/" + std::to_string(e.sample) : "");
}

/// Copies the files directly in `from` (not numbered sample folders) and writes meta.json.
void copy_solution(const fs::path& from, const fs::path& to, const std::string& meta_json) {
  fs::create_directories(to);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(from, ec))
    if (entry.is_regular_file() && entry.path().filename() != "meta.json")
      fs::copy_file(entry.path(), to / entry.path().filename(), fs::copy_options::overwrite_existing);
  std::ofstream meta(to / "meta.json");
  meta << (meta_json.empty() ? "{}" : meta_json) << '\n';
  if (!meta) ARB_THROW(io_error, "cannot write " + (to / "meta.json").string());
}

json entry_json(store::store& db, const store::evaluation_row& e) {
  const auto view = db.evaluation(e.id);
  return {{"problem", e.problem},
          {"model", e.model},
          {"org", e.org},
          {"sample", e.sample},
          {"hash", e.solution_hash},
          {"path", solution_folder(e)},
          {"verdict", to_string(*e.v)},
          {"reason", e.reason},
          {"speedup", e.speedup ? json(*e.speedup) : json(nullptr)},
          {"wall_s", e.wall_s},
          {"details", view ? view->result.details_json : "{}"},
          {"measurements", measurements_json(view ? view->result.measurements : std::vector<store::measurement_record>{})}};
}

[[noreturn]] void bad_index(const fs::path& file, const std::string& why) {
  ARB_THROW(config_error, fmt::format("{}: {}", file.string(), why));
}

const json& field(const json& object, const char* key, const fs::path& file) {
  if (!object.is_object() || !object.contains(key)) bad_index(file, fmt::format("missing key '{}'", key));
  return object[key];
}

store::evaluation_result result_from(const json& entry, const fs::path& file) {
  store::evaluation_result r;
  const std::string name = field(entry, "verdict", file).get<std::string>();
  const auto v = verdict_from_string(name);
  if (!v)
    bad_index(file,
              fmt::format("entry {}/{}: unknown verdict '{}'", entry.value("problem", "?"), entry.value("model", "?"), name));
  r.result = {*v, entry.value("reason", "")};
  if (entry.contains("speedup") && entry["speedup"].is_number()) r.speedup = entry["speedup"].get<double>();
  r.wall_s = entry.value("wall_s", 0.0);
  r.details_json = entry.value("details", "{}");
  for (const auto& m : entry.value("measurements", json::array())) r.measurements.push_back(store::measurement_from_json(m));
  return r;
}

store::hardware_record hardware_from(const json& hw) {
  store::hardware_record r;
  r.fingerprint = hw.value("fingerprint", "imported");
  r.device = hw.value("device", "");
  r.gpu_name = hw.value("gpu_name", "");
  r.sm_count = hw.value("sm_count", 0);
  r.l2_bytes = hw.value("l2_bytes", std::int64_t{0});
  r.memory_bytes = hw.value("memory_bytes", std::int64_t{0});
  r.driver = hw.value("driver", "");
  r.cuda = hw.value("cuda", "");
  r.torch = hw.value("torch", "");
  r.python = hw.value("python", "");
  r.host = hw.value("host", "");
  r.json = hw.value("json", "{}");
  return r;
}

} // namespace

std::size_t write_kernelarena(store::store& db, std::int64_t campaign_id, const fs::path& dir) {
  const json board = server::leaderboard_view(db, campaign_id);
  const auto campaign = db.campaign(campaign_id);
  json problems = json::array();
  for (const auto& p : db.campaign_problems(campaign_id))
    problems.push_back({{"id", p.record.key},
                        {"title", p.record.title},
                        {"level", p.record.level},
                        {"hash", p.record.hash},
                        {"spec", p.record.json}});
  json entries = json::array();
  for (const auto& e : db.evaluation_rows(campaign_id)) {
    if (e.status != "done" || !e.v) continue; // an unfinished evaluation has nothing to re-import
    copy_solution(e.solution_path, dir / solution_folder(e), e.meta_json);
    entries.push_back(entry_json(db, e));
  }
  const json index = {{"format", "kernelarena"},
                      {"version", k_index_version},
                      {"suite", campaign->suite},
                      {"campaign", campaign->name},
                      {"device", campaign->device},
                      {"ranked_by", board["ranked_by"]},
                      {"hardware", hardware_json(db, campaign->hardware_id)},
                      {"problems", problems},
                      {"entries", entries},
                      {"leaderboard", board["rows"]}};
  fs::create_directories(dir);
  std::ofstream out(dir / "index.json");
  out << index.dump(2) << '\n';
  if (!out) ARB_THROW(io_error, "cannot write " + (dir / "index.json").string());
  return entries.size();
}

store::campaign_record import_kernelarena(store::store& db, const fs::path& dir, const std::string& campaign_name) {
  const fs::path file = dir / "index.json";
  std::ifstream in(file);
  if (!in) ARB_THROW(config_error, file.string() + ": cannot read (expected a KernelArena export)");
  const json index = json::parse(in, nullptr, false);
  if (!index.is_object()) bad_index(file, "not a JSON object");
  const std::string suite = field(index, "suite", file).get<std::string>();
  store::campaign_record wanted;
  wanted.name = campaign_name.empty() ? field(index, "campaign", file).get<std::string>() : campaign_name;
  wanted.suite = suite;
  wanted.device = index.value("device", "");
  if (index.contains("hardware") && index["hardware"].is_object())
    wanted.hardware_id = db.upsert_hardware(hardware_from(index["hardware"]));
  wanted.config_json = json{{"imported_from", fs::absolute(dir).string()}}.dump();
  wanted.status = "finished";
  const store::campaign_record campaign = db.open_campaign(wanted);
  std::map<std::string, std::int64_t> problem_ids;
  for (const auto& p : field(index, "problems", file)) {
    const std::string key = field(p, "id", file).get<std::string>();
    problem_ids[key] =
        db.upsert_problem({suite, key, p.value("hash", key), p.value("title", ""), p.value("level", 1), p.value("spec", "{}")});
  }
  std::vector<std::int64_t> ids;
  for (const auto& [key, id] : problem_ids) ids.push_back(id);
  db.add_campaign_problems(campaign.id, ids);
  for (const auto& entry : field(index, "entries", file)) {
    const std::string problem = field(entry, "problem", file).get<std::string>();
    if (!problem_ids.count(problem)) bad_index(file, "entry for unknown problem '" + problem + "'");
    const std::string model = field(entry, "model", file).get<std::string>();
    const std::int64_t model_id = db.upsert_model(model, entry.value("org", ""));
    const fs::path folder = fs::absolute(dir / entry.value("path", ""));
    std::ifstream meta_in(folder / "meta.json");
    const json meta = meta_in ? json::parse(meta_in, nullptr, false) : json::object();
    const std::int64_t solution_id =
        db.upsert_solution(problem_ids[problem], model_id,
                           {model, entry.value("sample", 0), field(entry, "hash", file).get<std::string>(), folder.string(),
                            meta.is_object() ? meta.dump() : "{}"});
    if (db.finished_evaluation(campaign.id, solution_id)) continue;
    db.finish_evaluation(db.begin_evaluation(campaign.id, solution_id), result_from(entry, file));
  }
  return campaign;
}

} // namespace arbiter::exporting
