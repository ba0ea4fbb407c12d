#include "arbiter/store/evaluation_json.hpp"

#include "arbiter/store/measurement_json.hpp"

namespace arbiter::store {

namespace {

using json = nlohmann::ordered_json;

/// text parsed as JSON, or `fallback` where it is empty or does not parse.
json parsed_or(const std::string& text, json fallback) {
  if (text.empty()) return fallback;
  json parsed = json::parse(text, nullptr, false);
  return parsed.is_discarded() ? fallback : parsed;
}

} // namespace

json findings_json(const std::vector<finding_record>& findings) {
  json out = json::array();
  for (const auto& f : findings)
    out.push_back({{"pattern", f.pattern}, {"severity", f.severity}, {"evidence", f.evidence}, {"source", f.source}});
  return out;
}

nlohmann::json row_json(const evaluation_row& e) {
  using plain = nlohmann::json;
  return {{"model", e.model},
          {"org", e.org},
          {"sample", e.sample},
          {"status", e.status},
          {"verdict", e.v ? plain(to_string(*e.v)) : plain(nullptr)},
          {"reason", e.reason},
          {"speedup", e.speedup ? plain(*e.speedup) : plain(nullptr)},
          {"wall_s", e.wall_s},
          {"solution_path", e.solution_path}};
}

json evaluation_json(const evaluation_view& v, const std::string& current_guard) {
  const auto& r = v.result;
  json measurements = json::array();
  for (const auto& m : r.measurements) measurements.push_back(measurement_json(m));
  json details = parsed_or(r.details_json, json::object());
  if (!details.is_object()) details = json::object();
  return {{"id", v.id},
          {"campaign", v.campaign},
          {"suite", v.suite},
          {"problem", v.problem},
          {"model", v.model},
          {"sample", v.sample},
          {"status", v.status},
          {"verdict", v.status == "done" ? json(to_string(r.result.v)) : json(nullptr)},
          {"reason", r.result.reason},
          {"speedup", r.speedup ? json(*r.speedup) : json(nullptr)},
          {"wall_s", r.wall_s},
          {"solution_path", v.solution_path},
          {"solution_hash", v.solution_hash},
          {"artifacts_dir", r.artifacts_dir},
          {"started_at", v.started_at},
          {"finished_at", v.finished_at},
          {"measurements", measurements},
          {"findings", findings_json(r.findings)},
          {"facts", parsed_or(r.facts_json, nullptr)},
          {"guard_version", r.guard_version},
          {"guard_current", r.guard_version == current_guard},
          {"details", details}};
}

} // namespace arbiter::store
