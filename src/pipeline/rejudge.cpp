// `arbiter rejudge`: each finished evaluation's run rebuilt from its folder (run.json and
// events.jsonl, detail/run_record.hpp) and handed to the current judge, beside the reference it was
// judged against. Nothing runs but the judge.
#include "arbiter/pipeline/rejudge.hpp"

#include "arbiter/catalog/suite.hpp"
#include "arbiter/common/error.hpp"
#include "arbiter/common/log.hpp"
#include "arbiter/guard/version.hpp"
#include "arbiter/judge/judge.hpp"
#include "detail/run_record.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <optional>

namespace arbiter::pipeline {

namespace fs = std::filesystem;

namespace {

/// The campaign's suite as it is now, or why it cannot be read.
struct suite_now {
  std::optional<catalog::suite> suite;
  std::string missing;
};

suite_now load_campaign_suite(const store::campaign_record& campaign) {
  const auto config = nlohmann::json::parse(campaign.config_json, nullptr, false);
  if (!config.is_object() || !config.contains("suite_dir") || !config["suite_dir"].is_string())
    ARB_THROW(config_error, fmt::format("campaign '{}': its stored config has no key 'suite_dir' (a string)", campaign.name));
  const fs::path dir = config["suite_dir"].get<std::string>();
  try {
    return {catalog::load_suite(dir), ""};
  } catch (const error& e) {
    return {std::nullopt, fmt::format("suite {}: {}", dir.string(), e.what())};
  }
}

bool same_findings(const std::vector<store::finding_record>& a, const std::vector<store::finding_record>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t idx = 0; idx < a.size(); ++idx)
    if (a[idx].pattern != b[idx].pattern || a[idx].severity != b[idx].severity || a[idx].evidence != b[idx].evidence ||
        a[idx].source != b[idx].source)
      return false;
  return true;
}

/// What the judgement needs that is gone, in the order it is looked for; "" when nothing is.
std::string missing_evidence(const store::evaluation_view& view, const nlohmann::json& details) {
  const fs::path eval_dir = view.result.artifacts_dir;
  if (eval_dir.empty()) return "no evaluation folder was recorded";
  if (!fs::is_directory(eval_dir)) return "evaluation folder " + eval_dir.string() + " is gone";
  if (!fs::exists(eval_dir / detail::k_run_record_file))
    return fmt::format("no {} in {} (no candidate ran, or it ran before runs were recorded)", detail::k_run_record_file,
                       eval_dir.string());
  if (!fs::exists(eval_dir / "events.jsonl")) return "no events.jsonl in " + eval_dir.string();
  if (details.contains("pruned_bundles"))
    return fmt::format("{} bundles were pruned from {} once judged (arbiter eval --keep-outputs keeps them)",
                       details["pruned_bundles"].value("files", 0), eval_dir.string());
  return "";
}

/// The reference a run was judged against, still complete; "" when it is.
std::string missing_reference(const fs::path& ref_dir) {
  if (!fs::is_directory(ref_dir)) return "reference folder " + ref_dir.string() + " is gone";
  if (!fs::exists(ref_dir / "events.jsonl")) return "reference " + ref_dir.string() + " was pruned once its problem was judged";
  return "";
}

/// The current judgement of the run recorded in the evaluation's folder, or what is missing for it.
struct new_judgement {
  std::optional<store::evaluation_result> result;
  std::string missing;
};

new_judgement judge_again(const store::evaluation_view& view, const suite_now& suite) {
  const auto details = nlohmann::json::parse(view.result.details_json.empty() ? "{}" : view.result.details_json, nullptr, false);
  if (!suite.suite) return {std::nullopt, suite.missing};
  if (auto missing = missing_evidence(view, details); !missing.empty()) return {std::nullopt, missing};
  const fs::path eval_dir = view.result.artifacts_dir;
  detail::run_record record;
  try {
    record = detail::read_run_record(eval_dir);
  } catch (const error& e) {
    return {std::nullopt, e.what()};
  }
  if (auto missing = missing_reference(record.reference_dir); !missing.empty()) return {std::nullopt, missing};
  const catalog::problem* problem = suite.suite->find(view.problem);
  if (!problem) return {std::nullopt, fmt::format("problem {} is not in suite {} any more", view.problem, suite.suite->name)};
  std::vector<catalog::shape> shapes = problem->shapes_for(record.device);
  std::vector<std::string> names;
  for (const auto& shape : shapes) names.push_back(shape.name);
  if (names != record.shapes)
    return {std::nullopt,
            fmt::format("problem {}'s shapes on {} changed since it was judged (then: {})", view.problem, record.device,
                        fmt::join(record.shapes, ", "))};
  eval_options options;
  options.num_seeds = record.num_seeds;
  options.static_rules = !(details.is_object() && details.value("static_rules", "") == "off"); // an audit stays one
  const runner_paths paths;                                                                    // the judge starts no process
  const detail::job_context ctx{options, paths, record.device, std::move(shapes)};
  judge::judgement j = judge::judge({*problem, detail::judge_context_of(ctx), record.run, record.reference_dir, eval_dir});
  for (const char* key : judge::k_run_details)
    if (details.is_object() && details.contains(key)) j.details[key] = details[key];
  return {judge::stored_judgement(std::move(j)), ""};
}

rejudged rejudge_one(store::store& db, const store::evaluation_row& row, const suite_now& suite) {
  rejudged out;
  out.evaluation_id = row.id;
  out.problem = row.problem;
  out.model = row.model;
  out.sample = row.sample;
  const auto view = db.evaluation(row.id);
  if (!view) ARB_THROW(store_error, fmt::format("evaluation {} vanished while re-judging", row.id));
  out.before = view->result.result;
  out.guard_before = view->result.guard_version;
  new_judgement again;
  try {
    again = judge_again(*view, suite);
  } catch (const std::exception& e) { // arbiter's own failure: the stored verdict stays
    again.missing = std::string("the judge failed: ") + e.what();
  }
  if (!again.result) {
    out.missing = again.missing;
    return out;
  }
  store::evaluation_result& result = *again.result;
  out.after = result.result;
  out.guard_after = result.guard_version;
  const bool same = result.result.v == out.before.v && result.result.reason == out.before.reason &&
      same_findings(result.findings, view->result.findings);
  out.result = same ? rejudged::state::confirmed : rejudged::state::changed;
  if (!same) {
    auto details = nlohmann::json::parse(result.details_json);
    details["rejudged"] = {
        {"verdict", to_string(out.before.v)}, {"reason", out.before.reason}, {"guard_version", out.guard_before}};
    result.details_json = details.dump();
  }
  if (!same || out.guard_before != out.guard_after) db.rejudge_evaluation(row.id, result);
  return out;
}

} // namespace

rejudge_report rejudge_campaign(store::store& db, const store::campaign_record& campaign) {
  rejudge_report report;
  report.campaign = campaign.name;
  const suite_now suite = load_campaign_suite(campaign);
  for (const auto& row : db.evaluation_rows(campaign.id)) {
    if (row.status != "done") continue;
    report.evaluations.push_back(rejudge_one(db, row, suite));
    const rejudged& r = report.evaluations.back();
    if (r.result == rejudged::state::changed)
      ARB_INFO("rejudge", "evaluation {} ({} / {}): {} → {} under guard {}", r.evaluation_id, r.problem, r.model,
               to_string(r.before.v), to_string(r.after.v), r.guard_after);
  }
  return report;
}

} // namespace arbiter::pipeline
