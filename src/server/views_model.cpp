// The model page (per-problem results, per-level and per-tag breakdowns) and the hardware page
// (each machine, and every model across machines).
#include "arbiter/score/metrics.hpp"
#include "detail/campaign_data.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

namespace arbiter::server {

namespace {

using detail::campaign_data;

/// A group of problems (a level or a tag) and how the model did on them.
struct breakdown {
  std::int64_t problems = 0, attempted = 0, passed = 0;
  std::vector<double> speedups;
};

json breakdown_json(const std::string& key_name, const json& key, const breakdown& b) {
  return {{key_name, key},
          {"problems", b.problems},
          {"attempted", b.attempted},
          {"passed", b.passed},
          {"pass_rate", b.problems > 0 ? static_cast<double>(b.passed) / static_cast<double>(b.problems) : 0.0},
          {"geomean_speedup", optional_number(score::geomean(b.speedups))}};
}

/// The first sample of each problem the model attempted, and its sample counts.
struct attempt {
  const store::evaluation_row* first = nullptr;
  std::int64_t samples = 0, passed = 0;
};

std::map<std::string, attempt> attempts_of(const campaign_data& data, const std::string& model) {
  std::map<std::string, attempt> out;
  for (const auto& e : data.evaluations) {
    if (e.model != model || e.status != "done") continue;
    attempt& a = out[e.problem];
    ++a.samples;
    if (e.v == verdict::passed) ++a.passed;
    if (!a.first || e.sample < a.first->sample) a.first = &e;
  }
  return out;
}

void count_into(breakdown& b, const attempt* a) {
  ++b.problems;
  if (!a) return;
  ++b.attempted;
  if (a->first->v != verdict::passed) return;
  ++b.passed;
  if (a->first->speedup) b.speedups.push_back(*a->first->speedup);
}

json problem_result(const store::problem_view& p, const json& tags, const attempt* a) {
  json row = {{"problem", p.record.key}, {"title", p.record.title}, {"level", p.record.level}, {"tags", tags}};
  if (!a)
    return detail::merged(row,
                          {{"evaluation", nullptr},
                           {"verdict", nullptr},
                           {"reason", "not attempted"},
                           {"speedup", nullptr},
                           {"samples", 0},
                           {"passed_samples", 0}});
  return detail::merged(row,
                        {{"evaluation", a->first->id},
                         {"verdict", to_string(*a->first->v)},
                         {"reason", a->first->reason},
                         {"speedup", optional_number(a->first->speedup)},
                         {"samples", a->samples},
                         {"passed_samples", a->passed}});
}

json model_of(const campaign_data& data, const std::string& model) {
  const auto attempts = attempts_of(data, model);
  json problems = json::array();
  std::map<int, breakdown> levels;
  std::map<std::string, breakdown> tags;
  for (const auto& p : data.problems) {
    const auto found = attempts.find(p.record.key);
    const attempt* a = found == attempts.end() ? nullptr : &found->second;
    const json spec = detail::parse_object(p.record.json);
    const json problem_tags = spec.contains("tags") && spec["tags"].is_array() ? spec["tags"] : json::array();
    problems.push_back(problem_result(p, problem_tags, a));
    count_into(levels[p.record.level], a);
    for (const auto& tag : problem_tags)
      if (tag.is_string()) count_into(tags[tag.get<std::string>()], a);
  }
  json by_level = json::array(), by_tag = json::array();
  for (const auto& [level, b] : levels) by_level.push_back(breakdown_json("level", level, b));
  for (const auto& [tag, b] : tags) by_tag.push_back(breakdown_json("tag", tag, b));
  return {{"campaign", detail::campaign_header(data.campaign, data.hardware)},
          {"model", model},
          {"ranked_by", detail::ranked_by(data.campaign)},
          {"problems", problems},
          {"by_level", by_level},
          {"by_tag", by_tag}};
}

json hardware_entry(const store::hardware_view& hw, const std::vector<store::campaign_record>& campaigns) {
  json used = json::array();
  for (const auto& c : campaigns)
    if (c.hardware_id == hw.id) used.push_back({{"id", c.id}, {"name", c.name}, {"suite", c.suite}});
  const auto& r = hw.record;
  return {{"id", hw.id},
          {"name", detail::hardware_name(r)},
          {"fingerprint", r.fingerprint},
          {"device", r.device},
          {"gpu_name", r.gpu_name},
          {"sm_count", r.sm_count},
          {"l2_bytes", r.l2_bytes},
          {"memory_bytes", r.memory_bytes},
          {"driver", r.driver},
          {"cuda", r.cuda},
          {"torch", r.torch},
          {"python", r.python},
          {"host", r.host},
          {"created_at", hw.created_at},
          {"peaks", detail::parse_object(r.json).value("peaks", json(nullptr))},
          {"campaigns", used}};
}

/// Per suite: the latest campaign on each machine, and each model's pass@1 and geomean there.
json portability(store::store& db, const std::vector<store::campaign_record>& campaigns) {
  std::map<std::string, std::map<std::int64_t, const store::campaign_record*>> latest; // suite → hw → campaign
  for (const auto& c : campaigns) latest[c.suite].emplace(c.hardware_id, &c);          // most recent first: emplace keeps it
  json out = json::array();
  for (const auto& [suite, by_hw] : latest) {
    json machines = json::array();
    std::map<std::string, json> models;
    for (const auto& [hw_id, c] : by_hw) {
      machines.push_back({{"hardware", hw_id}, {"campaign", c->id}, {"campaign_name", c->name}});
      for (const auto& row : score::summarize(db.results(c->id), db.problem_count(c->id)))
        models[row.model][std::to_string(hw_id)] = {{"pass_at_1", row.pass_at_1},
                                                    {"geomean_speedup", optional_number(row.geomean_speedup)}};
    }
    json rows = json::array();
    for (const auto& [model, results] : models) rows.push_back({{"model", model}, {"results", results}});
    out.push_back({{"suite", suite}, {"machines", machines}, {"models", rows}});
  }
  return out;
}

} // namespace

json model_view(store::store& db, std::int64_t campaign_id, const std::string& model) {
  const campaign_data data = detail::load_campaign(db, campaign_id);
  const bool known = std::any_of(data.evaluations.begin(), data.evaluations.end(),
                                 [&](const store::evaluation_row& e) { return e.model == model; });
  if (!known) ARB_THROW(not_found_error, fmt::format("no model '{}' in campaign {}", model, campaign_id));
  return model_of(data, model);
}

json hardware_view(store::store& db) {
  const auto campaigns = db.campaigns();
  json machines = json::array();
  for (const auto& hw : db.hardware_list()) machines.push_back(hardware_entry(hw, campaigns));
  return {{"hardware", machines}, {"portability", portability(db, campaigns)}};
}

} // namespace arbiter::server
