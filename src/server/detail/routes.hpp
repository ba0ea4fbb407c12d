#pragma once
/// The pages as a table: each has a path pattern, the view that builds its JSON (served under
/// /api) and the renderer that turns that JSON into HTML. The server and the static site both
/// walk this table.
#include "detail/pages.hpp"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace arbiter::server::detail {

/// What a route gets: the captures of its pattern and the query parameters.
struct request_args {
  std::vector<std::string> captures;
  std::map<std::string, std::string> query;
  std::string db_path;
  /// The query parameter, or "" when absent.
  std::string param(const std::string& key) const;
};

struct route {
  std::string pattern; ///< regex over the path after "/" (and after "/api/" for the JSON)
  std::function<json(store::store&, const request_args&)> view;
  std::function<std::string(const json&, const links&, const request_args&)> render;
};

/// Every page. Views throw not_found_error for unknown ids and config_error for malformed ones.
const std::vector<route>& routes();

/// Parses a decimal id from a capture; throws config_error naming it otherwise.
std::int64_t parse_id(const std::string& text, const char* what);

} // namespace arbiter::server::detail
