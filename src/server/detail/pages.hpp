#pragma once
/// HTML pages rendered from the views' JSON (arbiter/server/views.hpp): the page and its JSON API
/// show the same data by construction.
#include "detail/html.hpp"

#include <string>

namespace arbiter::server::detail {

/// The leaderboard table of one campaign (a section of several pages), with its plots.
std::string leaderboard_section(const json& board, const links& l);
std::string boards_page(const json& boards, const links& l);
std::string campaigns_page(const json& campaigns, const links& l);
/// Leaderboard and progress; on the live server the progress block follows server-sent events.
std::string campaign_page(const json& board, const json& progress, const links& l);
std::string model_page(const json& model, const links& l);
/// `against`: the model whose solution every other is diffed against ("" = the best-ranked passing one).
std::string problem_page(const json& problem, const links& l, const std::string& against);
std::string evaluation_page(const json& evaluation, const links& l);
std::string hardware_page(const json& hardware, const links& l);
std::string not_found_page(const std::string& what, const links& l);

/// Path (for links::to) of each page.
std::string campaign_path(std::int64_t campaign_id);
std::string model_path(std::int64_t campaign_id, const std::string& model);
std::string problem_path(std::int64_t campaign_id, const std::string& problem);
std::string evaluation_path(std::int64_t evaluation_id);

} // namespace arbiter::server::detail
