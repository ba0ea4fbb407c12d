#pragma once
/// `arbiter serve`: the web leaderboard, its JSON API and live progress, from one binary with its
/// assets embedded; `arbiter site`: the same pages as a static folder.
#include <filesystem>
#include <string>

namespace arbiter::server {

struct serve_options {
  std::string db = "arbiter.db";
  std::string host = "127.0.0.1";
  int port = 8080;   ///< 0 picks a free port
  int poll_ms = 500; ///< how often live pages look at the database
};

/// Serves until SIGINT or SIGTERM; prints "listening on http://HOST:PORT" on stdout once it accepts
/// connections. Throws config_error when the database does not exist, io_error when the address
/// cannot be bound.
void serve(const serve_options& options);

/// Writes every page (leaderboards, campaigns, models, problems, evaluations, hardware) and the
/// assets under `dir`, linked relatively so that the folder browses from disk or any static host.
/// Returns the number of pages written. Throws config_error, store_error or io_error.
std::size_t write_site(const std::string& db, const std::filesystem::path& dir);

} // namespace arbiter::server
