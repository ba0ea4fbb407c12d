#include "arbiter/server/server.hpp"
#include "detail/commands.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace arbiter::cli::detail {

namespace {

struct site_args {
  std::string db = "arbiter.db";
  std::string dir;
};

int run_site(const site_args& args) {
  const std::size_t pages = server::write_site(args.db, args.dir);
  std::cerr << fmt::format("site: {} pages written to {}\n", pages, args.dir);
  return 0;
}

} // namespace

command serve_command() {
  return {"serve", "Serve the web leaderboard, drill-down pages, JSON API and live campaign progress", [](CLI::App& app) {
            auto args = std::make_shared<server::serve_options>();
            add_db_option(app, args->db);
            app.add_option("--port", args->port, "TCP port (0 picks a free one)")->envname("ARBITER_PORT")->capture_default_str();
            app.add_option("--host", args->host, "Address to listen on")->envname("ARBITER_HOST")->capture_default_str();
            app.add_option("--poll-ms", args->poll_ms, "How often live pages look at the database")
                ->envname("ARBITER_POLL_MS")
                ->check(CLI::Range(20, 60000))
                ->capture_default_str();
            return [args] {
              server::serve(*args);
              return 0;
            };
          }};
}

command site_command() {
  return {"site", "Write the web pages as a static folder", [](CLI::App& app) {
            auto args = std::make_shared<site_args>();
            app.add_option("dir", args->dir, "Output folder")->required();
            add_db_option(app, args->db);
            return [args] { return run_site(*args); };
          }};
}

} // namespace arbiter::cli::detail
