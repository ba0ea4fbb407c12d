#include "detail/commands.hpp"

namespace arbiter::cli {

std::vector<command> commands() {
  return {detail::eval_command(),   detail::leaderboard_command(), detail::show_command(),   detail::doctor_command(),
          detail::check_command(),  detail::agent_command(),       detail::suite_command(),  detail::serve_command(),
          detail::site_command(),   detail::export_command(),      detail::import_command(), detail::calibrate_command(),
          detail::rejudge_command()};
}

namespace detail {

void add_db_option(CLI::App& app, std::string& db) {
  app.add_option("--db", db, "Results database (SQLite file)")->envname("ARBITER_DB")->capture_default_str();
}

} // namespace detail

} // namespace arbiter::cli
