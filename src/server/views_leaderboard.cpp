// The leaderboard, board index, campaign list and live progress views.
#include "arbiter/report/row_json.hpp"
#include "arbiter/guard/version.hpp"
#include "arbiter/score/metrics.hpp"
#include "arbiter/score/ranking.hpp"
#include "detail/campaign_data.hpp"
#include "detail/roofline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

namespace arbiter::server {

namespace {

using detail::campaign_data;

/// A leaderboard row's identity: model and harness (score::model_summary).
using row_key = std::pair<std::string, std::string>;

std::map<std::string, std::string> org_by_model(const campaign_data& data) {
  std::map<std::string, std::string> out;
  for (const auto& e : data.evaluations) out[e.model] = e.org;
  return out;
}

/// Mean over a row's passed problems of the problem's mean fraction of peak over its shapes;
/// empty map when the hardware has no calibrated peaks.
std::map<row_key, double> fraction_of_peak_by_row(store::store& db, const campaign_data& data) {
  std::map<row_key, double> out;
  if (!data.hardware) return out;
  const json hw = detail::parse_object(data.hardware->record.json);
  std::map<std::string, json> specs;
  for (const auto& p : data.problems) specs[p.record.key] = detail::parse_object(p.record.json);
  std::map<row_key, std::vector<double>> fractions;
  for (const auto& e : data.evaluations) {
    if (e.sample != 0 || e.v != verdict::passed) continue;
    const json& spec = specs[e.problem];
    const auto p = detail::peaks_of(hw, spec.value("dtype", "float32"));
    if (!p) continue;
    const auto view = db.evaluation(e.id);
    std::vector<double> shapes;
    for (const auto& m : view ? view->result.measurements : std::vector<store::measurement_record>{})
      if (auto w = m.role == "candidate" ? detail::work_of(spec, m.shape) : std::nullopt)
        shapes.push_back(detail::fraction_of_peak(*w, m.median_ms / 1e3, *p));
    if (!shapes.empty()) fractions[{e.model, score::read_session_meta(e.meta_json).harness}].push_back(score::mean(shapes));
  }
  for (const auto& [key, values] : fractions) out[key] = score::mean(values);
  return out;
}

// The report's row (report::row_json), with the model's organisation and its fraction of peak.
json leaderboard_row(std::size_t rank, const score::model_summary& row, const std::string& org,
                     const std::map<row_key, double>& peak) {
  json out = report::row_json<json>(rank, row);
  const auto fraction = peak.find({row.model, row.harness});
  out["org"] = org;
  out["fraction_of_peak"] = fraction == peak.end() ? json(nullptr) : json(fraction->second);
  return out;
}

json peak_note(const campaign_data& data, bool measured) {
  if (measured) return {{"measured", true}, {"note", "mean over passed problems of achieved ÷ calibrated peak"}};
  const bool peaks = data.hardware && detail::parse_object(data.hardware->record.json).contains("peaks");
  return {{"measured", false},
          {"note",
           peaks ? "not measured: no problem of this campaign has a [roofline] matching its timed shapes"
                 : "not measured: this hardware has no calibrated peaks"}};
}

/// Every problem of the campaign with how many models attempted and passed it (first samples).
json problem_list(const campaign_data& data) {
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> counts; // attempted, passed
  for (const auto& e : data.evaluations) {
    if (e.sample != 0 || e.status != "done") continue;
    auto& [attempted, passed] = counts[e.problem];
    ++attempted;
    passed += e.v == verdict::passed;
  }
  json out = json::array();
  for (const auto& p : data.problems) {
    const auto& [attempted, passed] = counts[p.record.key];
    out.push_back({{"key", p.record.key},
                   {"title", p.record.title},
                   {"level", p.record.level},
                   {"attempted_by", attempted},
                   {"passed_by", passed}});
  }
  return out;
}

std::vector<double> first_sample_speedups(const campaign_data& data) {
  std::vector<double> out;
  for (const auto& e : data.evaluations)
    if (e.sample == 0 && e.v == verdict::passed && e.speedup) out.push_back(*e.speedup);
  return out;
}

json timing_methods_json(const score::ranking& ranking) {
  json out = json::array();
  for (const auto& [method, count] : ranking.methods) out.push_back({{"method", method}, {"timings", count}});
  return out;
}

// The timing methods are a GROUP BY over every measurement of the campaign's passed evaluations,
// the costliest read of the page; they change only when a passed evaluation is written, so they
// are kept per (store, campaign) and read again when the passed evaluations differ.
std::vector<store::timing_method_count> timing_methods_of(store::store& db, const campaign_data& data) {
  std::string stamp;
  std::int64_t passed = 0, last_id = 0;
  for (const auto& e : data.evaluations)
    if (e.status == "done" && e.v == verdict::passed) {
      ++passed;
      last_id = std::max(last_id, e.id);
      stamp = std::max(stamp, e.finished_at);
    }
  stamp += "/" + std::to_string(passed) + "/" + std::to_string(last_id);
  struct entry {
    std::string stamp;
    std::vector<store::timing_method_count> methods;
  };
  static std::mutex mutex;
  static std::map<std::pair<const void*, std::int64_t>, entry> cache;
  const std::pair<const void*, std::int64_t> key{&db, data.campaign.id};
  {
    const std::lock_guard lock(mutex);
    if (const auto it = cache.find(key); it != cache.end() && it->second.stamp == stamp) return it->second.methods;
  }
  auto methods = db.timing_methods(data.campaign.id);
  const std::lock_guard lock(mutex);
  cache[key] = {stamp, methods};
  return methods;
}

json leaderboard_of(store::store& db, const campaign_data& data) {
  const auto summaries = score::summarize_evaluations(data.evaluations, data.problem_count, guard::guard_version());
  const auto orgs = org_by_model(data);
  const auto peak = fraction_of_peak_by_row(db, data);
  const score::ranking ranking = score::describe_ranking(data.campaign.device, timing_methods_of(db, data));
  json rows = json::array();
  for (std::size_t idx = 0; idx < summaries.size(); ++idx)
    rows.push_back(leaderboard_row(idx + 1, summaries[idx], orgs.at(summaries[idx].model), peak));
  return {{"campaign", detail::campaign_header(data.campaign, data.hardware)},
          {"ranked_by", ranking.sentence},
          {"guard_version", guard::guard_version()},
          {"problem_list", problem_list(data)},
          {"speedups", first_sample_speedups(data)},
          {"baseline", ranking.baseline},
          {"clock", ranking.clock},
          {"timing_methods", timing_methods_json(ranking)},
          {"problems", data.problem_count},
          {"fast_p_thresholds", score::k_fast_p_thresholds},
          {"fraction_of_peak", peak_note(data, !peak.empty())},
          {"rows", rows}};
}

json progress_of(const campaign_data& data) {
  std::int64_t done = 0;
  json running = json::array(), verdicts = json::object();
  std::vector<const store::evaluation_row*> finished;
  for (const auto& e : data.evaluations) {
    if (e.status != "done") {
      running.push_back({{"id", e.id}, {"problem", e.problem}, {"model", e.model}, {"sample", e.sample}});
      continue;
    }
    ++done;
    const std::string name(e.v ? to_string(*e.v) : "unknown");
    verdicts[name] = verdicts.value(name, 0) + 1;
    finished.push_back(&e);
  }
  std::sort(finished.begin(), finished.end(),
            [](const auto* a, const auto* b) { return std::tie(a->finished_at, a->id) > std::tie(b->finished_at, b->id); });
  json latest = json::array();
  for (std::size_t idx = 0; idx < finished.size() && idx < 10; ++idx) {
    const auto& e = *finished[idx];
    latest.push_back({{"id", e.id},
                      {"problem", e.problem},
                      {"model", e.model},
                      {"sample", e.sample},
                      {"verdict", e.v ? to_string(*e.v) : "unknown"},
                      {"reason", e.reason},
                      {"speedup", optional_number(e.speedup)},
                      {"finished_at", e.finished_at}});
  }
  return {{"campaign", detail::campaign_header(data.campaign, data.hardware)},
          {"finished", data.campaign.status == "finished"},
          {"problems", data.problem_count},
          {"evaluations", data.evaluations.size()},
          {"done", done},
          {"running", running},
          {"verdicts", verdicts},
          {"latest", latest}};
}

} // namespace

json leaderboard_view(store::store& db, std::int64_t campaign_id) {
  return leaderboard_of(db, detail::load_campaign(db, campaign_id));
}

json progress_view(store::store& db, std::int64_t campaign_id) { return progress_of(detail::load_campaign(db, campaign_id)); }

json campaign_view(store::store& db, std::int64_t campaign_id) {
  const campaign_data data = detail::load_campaign(db, campaign_id);
  return {{"leaderboard", leaderboard_of(db, data)}, {"progress", progress_of(data)}};
}

json boards_view(store::store& db) {
  std::set<std::tuple<std::string, std::int64_t, std::string>> seen;
  json boards = json::array();
  for (const auto& c : db.campaigns()) { // most recent first: the first of each board is its latest
    if (!seen.insert({c.suite, c.hardware_id, c.device}).second) continue;
    boards.push_back(leaderboard_view(db, c.id));
  }
  return {{"boards", boards}};
}

json campaigns_view(store::store& db) {
  json out = json::array();
  for (const auto& c : db.campaigns()) {
    json progress = progress_view(db, c.id);
    out.push_back({{"campaign", progress["campaign"]},
                   {"problems", progress["problems"]},
                   {"evaluations", progress["evaluations"]},
                   {"done", progress["done"]},
                   {"running", progress["running"].size()},
                   {"verdicts", progress["verdicts"]}});
  }
  return {{"campaigns", out}};
}

} // namespace arbiter::server
