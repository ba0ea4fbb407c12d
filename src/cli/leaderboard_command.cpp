#include "arbiter/common/error.hpp"
#include "arbiter/guard/version.hpp"
#include "arbiter/score/metrics.hpp"
#include "arbiter/score/ranking.hpp"
#include "detail/commands.hpp"

#include <iostream>
#include <memory>

namespace arbiter::cli::detail {

namespace {

struct leaderboard_args {
  std::string db = "arbiter.db";
  std::string suite;
  std::string campaign;
  bool json = false, csv = false, md = false;
};

store::campaign_record pick_campaign(store::store& db, const leaderboard_args& args) {
  if (!args.campaign.empty()) {
    auto found = db.find_campaign(args.campaign);
    if (!found) ARB_THROW(config_error, "--campaign: no campaign named '" + args.campaign + "' in " + args.db);
    return *found;
  }
  for (const auto& c : db.campaigns()) // most recent first
    if (args.suite.empty() || c.suite == args.suite) return c;
  ARB_THROW(config_error,
            args.db + ": no campaign" + (args.suite.empty() ? "" : " of suite '" + args.suite + "'") +
                " yet; run `arbiter eval` first");
}

int run_leaderboard(const leaderboard_args& args) {
  auto db = store::open_store(args.db);
  const auto campaign = pick_campaign(*db, args);
  const auto fmt = args.json ? report::format::json
      : args.csv             ? report::format::csv
      : args.md              ? report::format::markdown
                             : report::format::table;
  print_leaderboard(std::cout, *db, campaign.id, fmt);
  return 0;
}

} // namespace

void print_leaderboard(std::ostream& out, store::store& db, std::int64_t campaign_id, report::format fmt) {
  store::campaign_record campaign;
  for (const auto& c : db.campaigns())
    if (c.id == campaign_id) campaign = c;
  // Rows per (model, harness) with spend come from the solutions' meta.json, which evaluation_rows carries.
  const std::string& guard = guard::guard_version();
  const auto rows = score::summarize_evaluations(db.evaluation_rows(campaign_id), db.problem_count(campaign_id), guard);
  const score::ranking ranking = score::describe_ranking(campaign.device, db.timing_methods(campaign_id));
  report::render_leaderboard(out, {campaign.suite, campaign.name, campaign.device, ranking.sentence, ranking.methods, guard},
                             rows, fmt);
}

command leaderboard_command() {
  return {"leaderboard", "Rank the models of a campaign (default: the latest)", [](CLI::App& app) {
            auto args = std::make_shared<leaderboard_args>();
            add_db_option(app, args->db);
            app.add_option("--suite", args->suite, "Latest campaign of this suite");
            app.add_option("--campaign", args->campaign, "Campaign name");
            auto* json = app.add_flag("--json", args->json, "JSON output");
            auto* csv = app.add_flag("--csv", args->csv, "CSV output");
            auto* md = app.add_flag("--md", args->md, "Markdown output");
            json->excludes(csv)->excludes(md);
            csv->excludes(md);
            return [args] { return run_leaderboard(*args); };
          }};
}

} // namespace arbiter::cli::detail
