// JSON, CSV and Markdown exports of one campaign. The leaderboard numbers come from the same view
// the web page and its API use, so every export agrees with the page.
#include "arbiter/export/export.hpp"

#include "arbiter/report/escape.hpp"
#include "arbiter/store/evaluation_json.hpp"
#include "arbiter/server/views.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

namespace arbiter::exporting {

namespace {

using server::json;

json evaluations_json(store::store& db, std::int64_t campaign_id) {
  json out = json::array();
  for (const auto& e : db.evaluation_rows(campaign_id)) {
    json row = store::row_json(e);
    row["id"] = e.id;
    row["problem"] = e.problem;
    row["solution_hash"] = e.solution_hash;
    row["meta"] = json::parse(e.meta_json, nullptr, false).is_object() ? json::parse(e.meta_json) : json::object();
    out.push_back(std::move(row));
  }
  return out;
}

void write_csv(const json& evaluations, std::ostream& out) {
  const std::vector<std::string> columns{"id",      "problem", "model",   "org",    "sample",       "status",
                                         "verdict", "reason",  "speedup", "wall_s", "solution_hash"};
  for (std::size_t idx = 0; idx < columns.size(); ++idx) out << (idx ? "," : "") << columns[idx];
  out << "\r\n";
  for (const auto& e : evaluations) {
    for (std::size_t idx = 0; idx < columns.size(); ++idx) {
      const json& value = e[columns[idx]];
      out << (idx ? "," : "")
          << report::csv_field(value.is_null()         ? ""
                                   : value.is_string() ? value.get<std::string>()
                                                       : value.dump());
    }
    out << "\r\n";
  }
}

/// A value as a Markdown cell: null as a dash, strings as they are, numbers as JSON writes them.
std::string md(const json& value) {
  return report::markdown_cell(value.is_null() ? "—" : value.is_string() ? value.get<std::string>() : value.dump());
}

std::string md_speedup(const json& value) { return value.is_number() ? fmt::format("{:.2f}×", value.get<double>()) : "—"; }

void write_markdown(const json& board, const json& evaluations, std::ostream& out) {
  const json& c = board["campaign"];
  out << fmt::format("# {} — {}\n\n- suite: {}\n- device: {}\n- ranked by: {}\n\n", md(c["suite"]), md(c["name"]), md(c["suite"]),
                     md(c["device"]), md(board["ranked_by"]));
  out << "| rank | model | pass@1 | mean | median | geomean | score | fast_1 | rejected "
         "|\n|---:|:---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& r : board["rows"])
    out << fmt::format("| {} | {} | {:.1f}% | {} | {} | {} | {:.3f} | {:.1f}% | {} |\n", r["rank"].get<int>(), md(r["model"]),
                       100 * r["pass_at_1"].get<double>(), md_speedup(r["mean_speedup"]), md_speedup(r["median_speedup"]),
                       md_speedup(r["geomean_speedup"]), r["kernelarena_score"].get<double>(),
                       100 * r["fast_p"]["1"].get<double>(), r["rejected"].get<int>());
  std::set<std::string> models;
  std::map<std::string, std::map<std::string, std::string>> cells; // problem → model → verdict
  for (const auto& e : evaluations) {
    if (e["sample"] != 0) continue;
    models.insert(e["model"].get<std::string>());
    cells[e["problem"].get<std::string>()][e["model"].get<std::string>()] =
        md(e["verdict"]) + (e["speedup"].is_null() ? "" : " " + md_speedup(e["speedup"]));
  }
  out << "\n## verdicts (first samples)\n\n| problem |";
  for (const auto& m : models) out << ' ' << md(m) << " |";
  out << "\n|:---|";
  for (std::size_t idx = 0; idx < models.size(); ++idx) out << ":---|";
  out << '\n';
  for (const auto& [problem, row] : cells) {
    out << "| " << md(problem) << " |";
    for (const auto& m : models) out << ' ' << (row.count(m) ? row.at(m) : "—") << " |";
    out << '\n';
  }
}

} // namespace

void export_campaign(store::store& db, std::int64_t campaign_id, export_format format, std::ostream& out) {
  const json board = server::leaderboard_view(db, campaign_id);
  const json evaluations = evaluations_json(db, campaign_id);
  switch (format) {
  case export_format::json:
    out << json{{"leaderboard", board}, {"evaluations", evaluations}}.dump(2) << '\n';
    return;
  case export_format::csv:
    return write_csv(evaluations, out);
  case export_format::markdown:
    return write_markdown(board, evaluations, out);
  }
  ARB_THROW(internal_error, fmt::format("unknown export format {}", static_cast<int>(format)));
}

} // namespace arbiter::exporting
