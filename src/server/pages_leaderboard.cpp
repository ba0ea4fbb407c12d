// Leaderboard, board index, campaign list and the campaign page with live progress.
#include "arbiter/score/metrics.hpp"
#include "detail/pages.hpp"
#include "detail/svg.hpp"

#include <fmt/format.h>

namespace arbiter::server::detail {

namespace {

std::string header_line(const json& board, const links& l) {
  const json& c = board["campaign"];
  const std::string hw = c["hardware"].is_null() ? "unknown hardware" : c["hardware"]["name"].get<std::string>();
  return fmt::format("<p class=\"meta\">suite <b>{}</b> · {} ({}) · campaign {} · {}</p>", escape(c["suite"].get<std::string>()),
                     escape(hw), escape(c["device"].get<std::string>()),
                     anchor(l, campaign_path(c["id"].get<std::int64_t>()), c["name"].get<std::string>()),
                     escape(c["status"].get<std::string>()));
}

/// Under the table: what the ranking's speedups are, from the methods of the stored timings.
std::string ranked_by_line(const json& board) {
  return fmt::format("<p class=\"note ranked-by\">ranked by <b>{}</b> · baseline <b>{}</b> · <b>{}</b> time</p>",
                     escape(board["ranked_by"].get<std::string>()), escape(board["baseline"].get<std::string>()),
                     escape(board["clock"].get<std::string>()));
}

/// The agent's wall time per solved problem: 42.0 s, 5.2 min, 3.1 h.
std::string format_duration(const json& seconds) {
  if (seconds.is_null()) return "—";
  const double s = seconds.get<double>();
  if (s < 100) return fmt::format("{:.1f} s", s);
  return s < 6000 ? fmt::format("{:.1f} min", s / 60) : fmt::format("{:.1f} h", s / 3600);
}

std::string table_head(const json& board) {
  std::string head = "<tr><th data-type=\"num\">rank</th><th>model</th><th data-type=\"num\">pass@1</th>"
                     "<th data-type=\"num\">mean</th><th data-type=\"num\">median</th><th data-type=\"num\">geomean</th>"
                     "<th data-type=\"num\">score</th>";
  for (const auto& p : board["fast_p_thresholds"])
    head += fmt::format("<th data-type=\"num\">fast<sub>{}</sub></th>", p.get<double>());
  return head +
      "<th data-type=\"num\">of peak</th><th data-type=\"num\">tokens / solved</th>"
      "<th data-type=\"num\">cache tokens / solved</th><th data-type=\"num\">cost / solved</th>"
      "<th data-type=\"num\">agent time / solved</th><th data-type=\"num\">rejected</th><th>verdicts</th></tr>";
}

std::string verdict_summary(const json& verdicts) {
  std::string out;
  for (const auto& [name, count] : verdicts.items()) out += fmt::format("{} {}, ", escape(name), count.get<std::int64_t>());
  return out.empty() ? "—" : out.substr(0, out.size() - 2);
}

/// Where some of a row's evaluations were judged under another guard version: how many.
std::string stale_mark(const json& row) {
  const std::int64_t stale = row.value("stale_guard", std::int64_t{0});
  if (stale == 0) return "";
  return fmt::format(" <small class=\"stale\" title=\"evaluations judged under a guard version other than this "
                     "build's; arbiter rejudge judges them again\">stale guard: {}</small>",
                     stale);
}

std::string table_row(const json& row, std::int64_t campaign_id, const links& l) {
  std::string out = "<tr>" + sort_cell(row["rank"], std::to_string(row["rank"].get<std::int64_t>()));
  const std::string model = row["model"].get<std::string>(), harness = row["harness"].get<std::string>();
  out += sort_cell(harness.empty() ? model : model + " · " + harness,
                   anchor(l, model_path(campaign_id, model), model) +
                       (harness.empty() ? "" : " · <small class=\"harness\">" + escape(harness) + "</small>") + stale_mark(row));
  out += sort_cell(row["pass_at_1"], format_percent(row["pass_at_1"]));
  for (const char* key : {"mean_speedup", "median_speedup", "geomean_speedup"})
    out += sort_cell(row[key], format_speedup(row[key]));
  out += sort_cell(row["kernelarena_score"], format_number(row["kernelarena_score"], 3));
  for (const auto& [p, share] : row["fast_p"].items()) out += sort_cell(share, format_percent(share));
  out += sort_cell(row["fraction_of_peak"],
                   row["fraction_of_peak"].is_null() ? "not measured" : format_percent(row["fraction_of_peak"]));
  for (const char* key : {"tokens_per_solved", "cache_tokens_per_solved"})
    out += sort_cell(row[key], row[key].is_null() ? "—" : format_count(row[key].get<double>()));
  const json& cost = row["cost_per_solved_usd"];
  out += sort_cell(cost, cost.is_null() ? "—" : fmt::format("${:.3f}", cost.get<double>()));
  out += sort_cell(row["wall_s_per_solved"], format_duration(row["wall_s_per_solved"]));
  out += sort_cell(row["rejected"], std::to_string(row["rejected"].get<std::int64_t>()));
  return out + "<td>" + verdict_summary(row["verdicts"]) + "</td></tr>\n";
}

std::string score_bars(const json& board, const links& l) {
  std::vector<bar> bars;
  const std::int64_t id = board["campaign"]["id"].get<std::int64_t>();
  for (const auto& row : board["rows"])
    bars.push_back({row["harness"].get<std::string>().empty()
                        ? row["model"].get<std::string>()
                        : row["model"].get<std::string>() + " · " + row["harness"].get<std::string>(),
                    row["kernelarena_score"].get<double>(), l.to(model_path(id, row["model"].get<std::string>()))});
  return bar_chart("KernelArena score per model (mean × median × pass@1)", bars, "");
}

std::string progress_block(const json& progress, const links& l) {
  const std::int64_t id = progress["campaign"]["id"].get<std::int64_t>();
  std::string latest;
  for (const auto& e : progress["latest"])
    latest += fmt::format("<li>{} {} / {} {}</li>", verdict_badge(e["verdict"]),
                          anchor(l, evaluation_path(e["id"].get<std::int64_t>()), e["problem"].get<std::string>()),
                          escape(e["model"].get<std::string>()), format_speedup(e["speedup"]));
  std::string running;
  for (const auto& e : progress["running"])
    running += fmt::format("<li>{} / {}</li>", escape(e["problem"].get<std::string>()), escape(e["model"].get<std::string>()));
  const std::string events = l.live ? fmt::format(" data-events=\"/api/campaign/{}/events\"", id) : "";
  return fmt::format(
      "<section id=\"progress\" class=\"progress\"{}><h2>progress</h2>"
      "<p><span id=\"progress-done\">{}</span> finished of <span id=\"progress-total\">{}</span> started · "
      "status <span id=\"progress-status\">{}</span> · <span id=\"progress-verdicts\">{}</span></p>"
      "<h3>running</h3><ul id=\"progress-running\">{}</ul><h3>latest</h3><ul id=\"progress-latest\">{}</ul></section>",
      events, progress["done"].get<std::int64_t>(), progress["evaluations"].get<std::int64_t>(),
      escape(progress["campaign"]["status"].get<std::string>()), verdict_summary(progress["verdicts"]), running, latest);
}

} // namespace

std::string campaign_path(std::int64_t campaign_id) { return fmt::format("campaign/{}", campaign_id); }
std::string model_path(std::int64_t campaign_id, const std::string& model) {
  return fmt::format("campaign/{}/model/{}", campaign_id, url_segment(model));
}
std::string problem_path(std::int64_t campaign_id, const std::string& problem) {
  return fmt::format("campaign/{}/problem/{}", campaign_id, url_segment(problem));
}
std::string evaluation_path(std::int64_t evaluation_id) { return fmt::format("evaluation/{}", evaluation_id); }

std::string leaderboard_section(const json& board, const links& l) {
  const std::int64_t id = board["campaign"]["id"].get<std::int64_t>();
  std::string rows;
  for (const auto& row : board["rows"]) rows += table_row(row, id, l);
  if (board["rows"].empty()) rows = "<tr><td colspan=\"19\">no finished evaluations yet</td></tr>";
  return fmt::format(
      "<section class=\"board\">{}<div class=\"scroll\"><table class=\"sortable leaderboard\" id=\"board-{}\">"
      "<thead>{}</thead><tbody>\n{}</tbody></table></div>{}<p class=\"note\">{} problems · fraction of peak: {}</p>{}</section>",
      header_line(board, l), id, table_head(board), rows, ranked_by_line(board), board["problems"].get<std::int64_t>(),
      escape(board["fraction_of_peak"]["note"].get<std::string>()), score_bars(board, l));
}

std::string boards_page(const json& boards, const links& l) {
  std::string body;
  for (const auto& board : boards["boards"])
    body +=
        fmt::format("<h2>{} on {}</h2>", escape(board["campaign"]["suite"].get<std::string>()),
                    escape(board["campaign"]["hardware"].is_null() ? board["campaign"]["device"].get<std::string>()
                                                                   : board["campaign"]["hardware"]["name"].get<std::string>())) +
        leaderboard_section(board, l);
  if (body.empty()) body = "<p>No campaign in this database yet: run <code>arbiter eval</code>.</p>";
  return page(l, "Leaderboards", body);
}

std::string campaigns_page(const json& campaigns, const links& l) {
  std::string rows;
  for (const auto& c : campaigns["campaigns"]) {
    const json& h = c["campaign"];
    rows += fmt::format("<tr>{}{}{}{}{}{}{}</tr>\n",
                        sort_cell(h["name"], anchor(l, campaign_path(h["id"].get<std::int64_t>()), h["name"].get<std::string>())),
                        sort_cell(h["suite"], escape(h["suite"].get<std::string>())),
                        sort_cell(h["device"], escape(h["device"].get<std::string>())),
                        sort_cell(h["status"], escape(h["status"].get<std::string>())),
                        sort_cell(c["done"], std::to_string(c["done"].get<std::int64_t>())),
                        sort_cell(c["problems"], std::to_string(c["problems"].get<std::int64_t>())),
                        sort_cell(h["created_at"], escape(h["created_at"].get<std::string>())));
  }
  return page(l, "Campaigns",
              "<table class=\"sortable\"><thead><tr><th>name</th><th>suite</th><th>device</th><th>status</th>"
              "<th data-type=\"num\">finished</th><th data-type=\"num\">problems</th><th>created</th></tr></thead><tbody>" +
                  rows + "</tbody></table>");
}

std::string campaign_page(const json& board, const json& progress, const links& l) {
  const std::int64_t id = board["campaign"]["id"].get<std::int64_t>();
  std::string problems;
  for (const auto& p : board["problem_list"])
    problems += fmt::format(
        "<tr>{}{}{}{}</tr>\n",
        sort_cell(p["key"], anchor(l, problem_path(id, p["key"].get<std::string>()), p["key"].get<std::string>())),
        sort_cell(p["title"], escape(p["title"].get<std::string>())),
        sort_cell(p["level"], std::to_string(p["level"].get<int>())),
        sort_cell(p["passed_by"],
                  fmt::format("{} of {}", p["passed_by"].get<std::int64_t>(), p["attempted_by"].get<std::int64_t>())));
  const std::string problem_table = "<h2>problems</h2><table class=\"sortable\"><thead><tr><th>problem</th><th>title</th>"
                                    "<th data-type=\"num\">level</th><th data-type=\"num\">passed by</th></tr></thead><tbody>" +
      problems + "</tbody></table>";
  return page(
      l, "Campaign " + board["campaign"]["name"].get<std::string>(),
      progress_block(progress, l) + leaderboard_section(board, l) +
          speedup_histogram("Speedups of passed first samples, all models", board["speedups"].get<std::vector<double>>()) +
          problem_table);
}

std::string not_found_page(const std::string& what, const links& l) {
  return page(l, "Not found", "<p>" + escape(what) + "</p><p>" + anchor(l, "", "back to the leaderboards") + "</p>");
}

} // namespace arbiter::server::detail
