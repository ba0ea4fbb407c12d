#pragma once
#include "arbiter/cli/commands.hpp"
#include "arbiter/report/leaderboard.hpp"
#include "arbiter/store/store.hpp"

#include <ostream>

namespace arbiter::cli::detail {

command eval_command();
command leaderboard_command();
command show_command();
command doctor_command();
command serve_command();
command site_command();
command export_command();
command import_command();
command check_command();
command agent_command();
command suite_command();
command calibrate_command();
command rejudge_command();

/// --db with its ARBITER_DB fallback.
void add_db_option(CLI::App& app, std::string& db);
/// Scores one campaign and renders it.
void print_leaderboard(std::ostream& out, store::store& db, std::int64_t campaign_id, report::format fmt);

} // namespace arbiter::cli::detail
