// The model page and the hardware page.
#include "detail/pages.hpp"
#include "detail/svg.hpp"

#include <fmt/format.h>

namespace arbiter::server::detail {

namespace {

std::string breakdown_table(const json& rows, const char* key, const char* title) {
  std::string body;
  for (const auto& r : rows)
    body += fmt::format("<tr>{}{}{}{}{}{}</tr>",
                        sort_cell(r[key], escape(r[key].is_string() ? r[key].get<std::string>() : r[key].dump())),
                        sort_cell(r["problems"], r["problems"].dump()), sort_cell(r["attempted"], r["attempted"].dump()),
                        sort_cell(r["passed"], r["passed"].dump()), sort_cell(r["pass_rate"], format_percent(r["pass_rate"])),
                        sort_cell(r["geomean_speedup"], format_speedup(r["geomean_speedup"])));
  return fmt::format("<h2>by {}</h2><table class=\"sortable\"><thead><tr><th>{}</th><th data-type=\"num\">problems</th>"
                     "<th data-type=\"num\">attempted</th><th data-type=\"num\">passed</th><th data-type=\"num\">pass rate</th>"
                     "<th data-type=\"num\">geomean</th></tr></thead><tbody>{}</tbody></table>",
                     title, title, body.empty() ? "<tr><td colspan=\"6\">none</td></tr>" : body);
}

std::string problems_table(const json& model, const links& l) {
  const std::int64_t id = model["campaign"]["id"].get<std::int64_t>();
  std::string body;
  for (const auto& p : model["problems"]) {
    const std::string key = p["problem"].get<std::string>();
    const std::string verdict = p["evaluation"].is_null() ? "<span class=\"verdict\">not attempted</span>"
                                                          : "<a href=\"" +
            escape(l.to(evaluation_path(p["evaluation"].get<std::int64_t>()))) + "\">" + verdict_badge(p["verdict"]) + "</a>";
    body +=
        fmt::format("<tr>{}{}{}{}{}{}</tr>\n", sort_cell(key, anchor(l, problem_path(id, key), key)),
                    sort_cell(p["level"], p["level"].dump()), sort_cell(p["verdict"], verdict),
                    sort_cell(p["speedup"], format_speedup(p["speedup"])),
                    sort_cell(p["passed_samples"],
                              fmt::format("{} of {}", p["passed_samples"].get<std::int64_t>(), p["samples"].get<std::int64_t>())),
                    "<td>" + escape(p["reason"].get<std::string>()) + "</td>");
  }
  return "<h2>problems</h2><table class=\"sortable\"><thead><tr><th>problem</th><th data-type=\"num\">level</th><th>verdict</th>"
         "<th data-type=\"num\">speedup</th><th data-type=\"num\">samples passed</th><th>reason</th></tr></thead><tbody>" +
      body + "</tbody></table>";
}

std::string machine_table(const json& machines, const links& l) {
  std::string body;
  for (const auto& m : machines) {
    std::string used;
    for (const auto& c : m["campaigns"])
      used += anchor(l, campaign_path(c["id"].get<std::int64_t>()), c["name"].get<std::string>()) + " ";
    body += fmt::format("<tr "
                        "id=\"hw-{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</"
                        "code></td><td>{}</td></tr>",
                        m["id"].get<std::int64_t>(), escape(m["name"].get<std::string>()), escape(m["device"].get<std::string>()),
                        m["sm_count"].get<int>(), escape(m["driver"].get<std::string>()), escape(m["cuda"].get<std::string>()),
                        escape(m["torch"].get<std::string>()), m["peaks"].is_null() ? "not calibrated" : "calibrated",
                        escape(m["fingerprint"].get<std::string>().substr(0, 12)), used);
  }
  return "<table><thead><tr><th>machine</th><th>device</th><th>SMs</th><th>driver</th><th>CUDA</th><th>torch</th>"
         "<th>peaks</th><th>fingerprint</th><th>campaigns</th></tr></thead><tbody>" +
      body + "</tbody></table>";
}

std::string portability_table(const json& suite, const json& names) {
  std::string head = "<tr><th>model</th>";
  for (const auto& m : suite["machines"]) head += "<th>" + escape(names.value(m["hardware"].dump(), std::string("?"))) + "</th>";
  std::string body;
  for (const auto& row : suite["models"]) {
    body += "<tr><td>" + escape(row["model"].get<std::string>()) + "</td>";
    for (const auto& m : suite["machines"]) {
      const std::string hw = m["hardware"].dump();
      const json& r = row["results"].contains(hw) ? row["results"][hw] : json(nullptr);
      body += r.is_null() ? "<td>—</td>"
                          : "<td>" + format_percent(r["pass_at_1"]) + " · " + format_speedup(r["geomean_speedup"]) + "</td>";
    }
    body += "</tr>";
  }
  return fmt::format("<h3>{}</h3><p class=\"note\">pass@1 · geomean speedup, latest campaign on each machine</p>"
                     "<table><thead>{}</thead><tbody>{}</tbody></table>",
                     escape(suite["suite"].get<std::string>()), head + "</tr>", body);
}

} // namespace

std::string model_page(const json& model, const links& l) {
  const std::int64_t id = model["campaign"]["id"].get<std::int64_t>();
  std::vector<bar> levels;
  for (const auto& r : model["by_level"])
    levels.push_back({fmt::format("level {}", r["level"].get<int>()), 100 * r["pass_rate"].get<double>(), ""});
  const std::string intro = fmt::format("<p class=\"meta\">campaign {} · ranked by: {}</p>",
                                        anchor(l, campaign_path(id), model["campaign"]["name"].get<std::string>()),
                                        escape(model["ranked_by"].get<std::string>()));
  return page(l, "Model " + model["model"].get<std::string>(),
              intro + problems_table(model, l) + breakdown_table(model["by_level"], "level", "level") +
                  bar_chart("pass rate per level", levels, "%") + breakdown_table(model["by_tag"], "tag", "tag"));
}

std::string hardware_page(const json& hardware, const links& l) {
  json names = json::object();
  for (const auto& m : hardware["hardware"]) names[m["id"].dump()] = m["name"];
  std::string portability;
  for (const auto& suite : hardware["portability"]) portability += portability_table(suite, names);
  return page(l, "Hardware",
              machine_table(hardware["hardware"], l) + "<h2>the same model across machines</h2>" +
                  (portability.empty() ? "<p>no campaigns yet</p>" : portability));
}

} // namespace arbiter::server::detail
