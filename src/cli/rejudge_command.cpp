#include "arbiter/common/error.hpp"
#include "arbiter/guard/version.hpp"
#include "arbiter/pipeline/rejudge.hpp"
#include "detail/commands.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <iostream>
#include <memory>

namespace arbiter::cli::detail {

namespace {

struct rejudge_args {
  std::string db = "arbiter.db";
  std::string campaign; ///< empty = every campaign
  bool json = false;
};

std::vector<store::campaign_record> chosen_campaigns(store::store& db, const rejudge_args& args) {
  if (args.campaign.empty()) return db.campaigns();
  auto found = db.find_campaign(args.campaign);
  if (!found) ARB_THROW(config_error, "--campaign: no campaign named '" + args.campaign + "' in " + args.db);
  return {*found};
}

std::string guard_or_none(const std::string& version) { return version.empty() ? "none" : version; }

std::string label(const pipeline::rejudged& r) {
  return fmt::format("{} / {}{}", r.problem, r.model, r.sample ? fmt::format(" #{}", r.sample) : "");
}

std::size_t count(const pipeline::rejudge_report& report, pipeline::rejudged::state state) {
  std::size_t n = 0;
  for (const auto& r : report.evaluations) n += r.result == state ? 1 : 0;
  return n;
}

void print_text(std::ostream& out, const pipeline::rejudge_report& report) {
  using state = pipeline::rejudged::state;
  out << fmt::format("campaign {}: {} changed, {} confirmed, {} cannot be re-judged (guard {})\n", report.campaign,
                     count(report, state::changed), count(report, state::confirmed), count(report, state::cannot),
                     guard::guard_version());
  if (count(report, state::changed) > 0) {
    out << fmt::format("  {:>10}  {:<32}  {:<30}  {}\n", "evaluation", "problem / model", "verdict", "guard");
    for (const auto& r : report.evaluations)
      if (r.result == state::changed)
        out << fmt::format("  {:>10}  {:<32}  {:<30}  {} → {}\n", r.evaluation_id, label(r),
                           fmt::format("{} → {}", to_string(r.before.v), to_string(r.after.v)), guard_or_none(r.guard_before),
                           r.guard_after);
    for (const auto& r : report.evaluations)
      if (r.result == state::changed) out << fmt::format("  {:>10}  now: {}\n", r.evaluation_id, r.after.reason);
  }
  for (const auto& r : report.evaluations)
    if (r.result == state::cannot) out << fmt::format("  {:>10}  {}: cannot rejudge: {}\n", r.evaluation_id, label(r), r.missing);
}

nlohmann::json outcome_json(const outcome& o) { return {{"verdict", to_string(o.v)}, {"reason", o.reason}}; }

nlohmann::json to_json(const pipeline::rejudge_report& report) {
  constexpr std::array<const char*, 3> k_states{"changed", "confirmed", "cannot"};
  nlohmann::json evaluations = nlohmann::json::array();
  for (const auto& r : report.evaluations) {
    nlohmann::json e{{"id", r.evaluation_id},
                     {"problem", r.problem},
                     {"model", r.model},
                     {"sample", r.sample},
                     {"state", k_states.at(static_cast<std::size_t>(r.result))},
                     {"before", outcome_json(r.before)},
                     {"guard_before", r.guard_before}};
    if (r.result == pipeline::rejudged::state::cannot) e["missing"] = r.missing;
    else e.update({{"after", outcome_json(r.after)}, {"guard_after", r.guard_after}});
    evaluations.push_back(std::move(e));
  }
  return {{"campaign", report.campaign}, {"evaluations", evaluations}};
}

int run_rejudge(const rejudge_args& args) {
  auto db = store::open_store(args.db);
  nlohmann::json campaigns = nlohmann::json::array();
  for (const auto& campaign : chosen_campaigns(*db, args)) {
    const auto report = pipeline::rejudge_campaign(*db, campaign);
    if (args.json) campaigns.push_back(to_json(report));
    else print_text(std::cout, report);
  }
  if (args.json) std::cout << nlohmann::json{{"guard_version", guard::guard_version()}, {"campaigns", campaigns}}.dump(2) << '\n';
  return 0;
}

} // namespace

command rejudge_command() {
  return {"rejudge",
          "Judge stored evaluations again under this build's guard and the suite's current rules, from their folders, "
          "without running any candidate; print the verdicts that change",
          [](CLI::App& app) {
            auto args = std::make_shared<rejudge_args>();
            add_db_option(app, args->db);
            app.add_option("--campaign", args->campaign, "Only this campaign (default: every campaign)");
            app.add_flag("--json", args->json, "JSON output");
            return [args] { return run_rejudge(*args); };
          }};
}

} // namespace arbiter::cli::detail
