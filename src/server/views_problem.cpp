// The problem page (every model's solution side by side) and the evaluation page.
#include "arbiter/guard/version.hpp"
#include "arbiter/store/evaluation_json.hpp"
#include "arbiter/store/measurement_json.hpp"
#include "arbiter/store/rerun.hpp"
#include "detail/campaign_data.hpp"
#include "detail/roofline.hpp"
#include "detail/source_files.hpp"

#include <fmt/format.h>

#include <map>

namespace arbiter::server {

namespace {

/// One row per shape: the candidate's timing, the baseline's, the speedup and the shape's work.
json shapes_json(const std::vector<store::measurement_record>& ms, const json& spec) {
  json shapes = json::array();
  std::map<std::string, std::size_t> index;
  for (const auto& m : ms) {
    auto [it, added] = index.emplace(m.shape, shapes.size());
    if (added) {
      const auto w = detail::work_of(spec, m.shape);
      shapes.push_back({{"shape", m.shape},
                        {"candidate", nullptr},
                        {"baseline", nullptr},
                        {"baseline_name", ""},
                        {"speedup", nullptr},
                        {"work", w ? json{{"flops", w->flops}, {"bytes", w->bytes}} : json(nullptr)}});
    }
    json& row = shapes[it->second];
    if (m.role == "candidate") row["candidate"] = store::measurement_json(m), row["speedup"] = optional_number(m.speedup);
    else row["baseline"] = store::measurement_json(m), row["baseline_name"] = m.baseline;
  }
  return shapes;
}

json solution_json(const store::evaluation_detail& evaluation, const json& spec) {
  const store::evaluation_row& e = evaluation.row;
  json out = store::row_json(e);
  out["evaluation"] = e.id;
  out["shapes"] = shapes_json(evaluation.measurements, spec);
  out["findings"] = store::findings_json(evaluation.findings);
  out["source"] = detail::read_solution_source(e.solution_path);
  return out;
}

json problem_json(const store::problem_view& p, const json& spec) {
  json shapes = json::array();
  if (spec.contains("shapes") && spec["shapes"].is_array())
    for (const auto& s : spec["shapes"]) shapes.push_back(s);
  return {{"key", p.record.key},
          {"title", p.record.title},
          {"level", p.record.level},
          {"tags", spec.value("tags", json::array())},
          {"dtype", spec.value("dtype", "float32")},
          {"shapes", shapes},
          {"roofline", spec.value("roofline", json(nullptr))},
          {"hash", p.record.hash}};
}

json environment_of(store::store& db, const store::campaign_record& c) {
  const auto hw = detail::hardware_of(db, c);
  if (!hw) return nullptr;
  return {{"hardware", detail::hardware_name(hw->record)},
          {"fingerprint", hw->record.fingerprint},
          {"doctor", detail::parse_object(hw->record.json)}};
}

} // namespace

json problem_view(store::store& db, std::int64_t campaign_id, const std::string& problem) {
  // One problem's rows only: a page over a 10,000-evaluation campaign reads its ~50 (bench/server).
  const store::campaign_record campaign = detail::find_campaign(db, campaign_id);
  const auto found = db.campaign_problem(campaign_id, problem);
  if (!found) ARB_THROW(not_found_error, fmt::format("no problem '{}' in campaign {}", problem, campaign_id));
  const json spec = detail::parse_object(found->record.json);
  json solutions = json::array();
  for (const auto& e : db.problem_evaluations(campaign_id, problem)) solutions.push_back(solution_json(e, spec));
  return {{"campaign", detail::campaign_header(campaign, detail::hardware_of(db, campaign))},
          {"ranked_by", detail::ranked_by(campaign)},
          {"problem", problem_json(*found, spec)},
          {"solutions", solutions}};
}

json evaluation_view(store::store& db, std::int64_t evaluation_id, const std::string& db_path) {
  const auto v = db.evaluation(evaluation_id);
  if (!v) ARB_THROW(not_found_error, fmt::format("no evaluation {}", evaluation_id));
  const store::campaign_record c = detail::find_campaign(db, v->campaign_id);
  json out = store::evaluation_json(*v, guard::guard_version());
  out["campaign"] = detail::campaign_header(c, std::nullopt);
  out["log"] = detail::read_log_tail(v->result.artifacts_dir, 200);
  out["artifacts"] = detail::list_artifacts(v->result.artifacts_dir);
  out["environment"] = environment_of(db, c);
  out["rerun"] = store::rerun_command(c, v->problem, v->model, db_path);
  return out;
}

} // namespace arbiter::server
