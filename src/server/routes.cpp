// The route table: path pattern → view (JSON) → renderer (HTML).
#include "detail/routes.hpp"

#include <charconv>

namespace arbiter::server::detail {

std::string request_args::param(const std::string& key) const {
  const auto it = query.find(key);
  return it == query.end() ? std::string() : it->second;
}

std::int64_t parse_id(const std::string& text, const char* what) {
  std::int64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size() || id <= 0)
    ARB_THROW(config_error, std::string(what) + " id '" + text + "' is not a positive integer");
  return id;
}

namespace {

std::vector<route> make_routes() {
  return {
      {"", [](store::store& db, const request_args&) { return boards_view(db); },
       [](const json& j, const links& l, const request_args&) { return boards_page(j, l); }},
      {"campaigns", [](store::store& db, const request_args&) { return campaigns_view(db); },
       [](const json& j, const links& l, const request_args&) { return campaigns_page(j, l); }},
      {"hardware", [](store::store& db, const request_args&) { return hardware_view(db); },
       [](const json& j, const links& l, const request_args&) { return hardware_page(j, l); }},
      {"campaign/([^/]+)",
       [](store::store& db, const request_args& a) { return campaign_view(db, parse_id(a.captures[0], "campaign")); },
       [](const json& j, const links& l, const request_args&) { return campaign_page(j["leaderboard"], j["progress"], l); }},
      {"campaign/([^/]+)/model/([^/]+)",
       [](store::store& db, const request_args& a) { return model_view(db, parse_id(a.captures[0], "campaign"), a.captures[1]); },
       [](const json& j, const links& l, const request_args&) { return model_page(j, l); }},
      {"campaign/([^/]+)/problem/([^/]+)",
       [](store::store& db, const request_args& a) {
         return problem_view(db, parse_id(a.captures[0], "campaign"), a.captures[1]);
       },
       [](const json& j, const links& l, const request_args& a) { return problem_page(j, l, a.param("against")); }},
      {"evaluation/([^/]+)",
       [](store::store& db, const request_args& a) {
         return evaluation_view(db, parse_id(a.captures[0], "evaluation"), a.db_path);
       },
       [](const json& j, const links& l, const request_args&) { return evaluation_page(j, l); }},
  };
}

} // namespace

const std::vector<route>& routes() {
  static const std::vector<route> table = make_routes();
  return table;
}

} // namespace arbiter::server::detail
