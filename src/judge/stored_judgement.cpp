// A judgement as it is stored and shown: its details (the one writer of the typed members' keys)
// and the store's evaluation result.
#include "arbiter/guard/version.hpp"
#include "arbiter/judge/judge.hpp"

namespace arbiter::judge {

namespace {

nlohmann::json case_json(const case_comparison& c) {
  return {{"shape", c.shape},
          {"input_set", c.input_set},
          {"ok", c.ok},
          {"reason", c.reason},
          {"numel", c.numel},
          {"mismatches", c.mismatches},
          {"nonfinite", c.nonfinite},
          {"max_abs_err", c.max_abs_err},
          {"max_rel_err", c.max_rel_err}};
}

template <class T, class Write>
void add_list(nlohmann::json& details, const char* key, const std::vector<T>& items, Write write) {
  if (items.empty()) return;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& item : items) list.push_back(write(item));
  details[key] = std::move(list);
}

} // namespace

nlohmann::json details_json(const judgement& j) {
  nlohmann::json details = j.details;
  if (j.cases) {
    details["cases"] = nlohmann::json::array();
    for (const auto& c : *j.cases) details["cases"].push_back(case_json(c));
  }
  add_list(details, "clocks_disagree", j.clocks_disagree, [](const clock_disagreement& d) {
    return nlohmann::json{{"shape", d.shape}, {"role", d.role}, {"timer_ms", d.timer_ms}, {"span_ms", d.span_ms}};
  });
  add_list(details, "dropped_ignored", j.drops_ignored, [](const dropped_ignored& d) {
    return nlohmann::json{{"shape", d.shape}, {"role", d.role}};
  });
  add_list(details, "outside_scored", j.outside_scored, [](const outside_score& o) {
    return nlohmann::json{{"shape", o.shape},
                          {"record_ms", o.record_ms},
                          {"confirmed_ms", o.confirmed_ms},
                          {"calls", o.calls},
                          {"slack_ms", o.slack_ms}};
  });
  return details;
}

store::evaluation_result stored_judgement(judgement j) {
  store::evaluation_result r;
  r.result = j.result;
  r.speedup = j.result.v == verdict::passed ? j.speedup : std::nullopt;
  r.details_json = details_json(j).dump();
  r.measurements = std::move(j.measurements);
  for (const auto& f : j.findings)
    r.findings.push_back({f.pattern, std::string(guard::to_string(f.level)), f.evidence, f.source});
  r.guard_version = guard::guard_version();
  return r;
}

} // namespace arbiter::judge
