// The problem page (solutions side by side, timings, roofline, source and diffs) and the
// evaluation page (result, evidence, log, environment, re-run command).
#include "detail/code_view.hpp"
#include "detail/pages.hpp"
#include "detail/svg.hpp"

#include <fmt/format.h>

#include <set>

namespace arbiter::server::detail {

namespace {

std::string shapes_table(const json& shapes) {
  std::string body;
  for (const auto& s : shapes) {
    const json& c = s["candidate"];
    const json& b = s["baseline"];
    body += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", escape(s["shape"].get<std::string>()),
                        c.is_null() ? "—" : format_number(c["median_ms"], 4) + " ms",
                        b.is_null() ? "—" : format_number(b["median_ms"], 4) + " ms", format_speedup(s["speedup"]));
  }
  if (body.empty()) return "<p class=\"note\">no timings</p>";
  return "<table "
         "class=\"compact\"><thead><tr><th>shape</th><th>candidate</th><th>baseline</th><th>speedup</th></tr></thead><tbody>" +
      body + "</tbody></table>";
}

std::string findings_list(const json& findings) {
  if (findings.empty()) return "<p class=\"note\">no findings</p>";
  std::string out = "<ul class=\"findings\">";
  for (const auto& f : findings)
    out += fmt::format("<li><b>{}</b> ({}, {}) {}</li>", escape(f["pattern"].get<std::string>()),
                       escape(f["severity"].get<std::string>()), escape(f["source"].get<std::string>()),
                       escape(f["evidence"].get<std::string>()));
  return out + "</ul>";
}

std::string source_block(const json& source) {
  if (source["file"].is_null()) return "<p class=\"note\">" + escape(source["error"].get<std::string>()) + "</p>";
  return fmt::format("<details><summary>{}</summary><pre class=\"code\">{}</pre></details>",
                     escape(source["file"].get<std::string>()),
                     highlight(source["text"].get<std::string>(), source["language"].get<std::string>()));
}

/// The solution others are diffed against: the chosen model's, else the first passing one.
const json* reference_solution(const json& solutions, const std::string& against) {
  const json* first_passed = nullptr;
  for (const auto& s : solutions) {
    if (!against.empty() && s["model"] == against && s["sample"] == 0) return &s;
    if (!first_passed && s["verdict"] == "passed" && !s["source"]["file"].is_null()) first_passed = &s;
  }
  return against.empty() ? first_passed : nullptr;
}

std::string solution_card(const json& s, const json* base, const links& l) {
  std::string diff;
  if (base && base != &s && !base->at("source")["file"].is_null() && !s["source"]["file"].is_null())
    diff = fmt::format("<details><summary>diff against {}</summary>{}</details>", escape(base->at("model").get<std::string>()),
                       diff_html(base->at("source")["text"].get<std::string>(), s["source"]["text"].get<std::string>()));
  const std::string sample = s["sample"].get<int>() ? fmt::format(" #{}", s["sample"].get<int>()) : "";
  return fmt::format("<article class=\"card\" data-model=\"{0}\"><h3>{1}{2} {3}</h3><p>{4} · {5} · "
                     "{6}</p>{7}<h4>findings</h4>{8}{9}{10}</article>\n",
                     escape(s["model"].get<std::string>()), escape(s["model"].get<std::string>()), escape(sample),
                     verdict_badge(s["verdict"]), format_speedup(s["speedup"]),
                     anchor(l, evaluation_path(s["evaluation"].get<std::int64_t>()), "evaluation " + s["evaluation"].dump()),
                     escape(s["reason"].get<std::string>()), shapes_table(s["shapes"]), findings_list(s["findings"]),
                     source_block(s["source"]), diff);
}

std::vector<whisker> timing_rows(const json& solutions) {
  std::vector<whisker> rows;
  std::set<std::string> baselines;
  for (const auto& s : solutions)
    for (const auto& shape : s["shapes"]) {
      const std::string name = shape["shape"].get<std::string>();
      if (!shape["baseline"].is_null() && baselines.insert(name).second)
        rows.push_back({"eager · " + name, shape["baseline"]["p10_ms"].get<double>(),
                        shape["baseline"]["median_ms"].get<double>(), shape["baseline"]["p90_ms"].get<double>(), true});
      if (!shape["candidate"].is_null())
        rows.push_back({s["model"].get<std::string>() + " · " + name, shape["candidate"]["p10_ms"].get<double>(),
                        shape["candidate"]["median_ms"].get<double>(), shape["candidate"]["p90_ms"].get<double>(), false});
    }
  return rows;
}

std::vector<point> roofline_points(const json& solutions) {
  std::vector<point> points;
  for (const auto& s : solutions) {
    if (s["verdict"] != "passed") continue;
    for (const auto& shape : s["shapes"]) {
      if (shape["work"].is_null() || shape["candidate"].is_null()) continue;
      const double flops = shape["work"]["flops"].get<double>(), bytes = shape["work"]["bytes"].get<double>();
      const double seconds = shape["candidate"]["median_ms"].get<double>() / 1e3;
      if (bytes > 0 && seconds > 0) points.push_back({s["model"].get<std::string>(), flops / bytes, flops / seconds / 1e9});
    }
  }
  return points;
}

std::string kv_row(std::string_view key, std::string_view html_value) {
  return fmt::format("<tr><th>{}</th><td>{}</td></tr>", escape(key), html_value);
}

// The clock state beside each timing: the samples' median SM clock, how many ran power-capped and
// how many were discarded as throttled ("—" where no clock was read, as on cpu).
std::string clock_cells(const json& m) {
  return fmt::format("<td>{}</td><td>{}</td><td>{}</td>", format_number(m["sm_clock_mhz"], 0),
                     m["sm_clock_mhz"].is_number() ? m["power_capped"].dump() : "—", m["throttled"].dump());
}

std::string measurements_table(const json& ms) {
  std::string body;
  for (const auto& m : ms)
    body += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}"
        "<td>{}</td></tr>",
        escape(m["shape"].get<std::string>()), escape(m["role"] == "baseline" ? m["baseline"].get<std::string>() : "candidate"),
        format_number(m["median_ms"], 4), format_number(m["p10_ms"], 4), format_number(m["p90_ms"], 4), m["samples"].dump(),
        format_percent(m["rel_noise"]), format_speedup(m["speedup"]), format_number(m["host_median_ms"], 4), clock_cells(m),
        escape(m["method"].get<std::string>()));
  return "<table><thead><tr><th>shape</th><th>role</th><th>median ms</th><th>p10 ms</th><th>p90 ms</th><th>samples</th>"
         "<th>noise</th><th>speedup</th><th>host ms</th><th>SM MHz</th><th>power-capped</th><th>throttled</th><th>method</th>"
         "</tr></thead><tbody>" +
      body + "</tbody></table>";
}

std::string log_block(const json& log) {
  if (log.contains("error")) return "<p class=\"note\">" + escape(log["error"].get<std::string>()) + "</p>";
  std::string text;
  for (const auto& line : log["lines"]) text += line.get<std::string>() + "\n";
  return fmt::format("<p class=\"note\">last {} of {} lines of {}</p><pre class=\"log\">{}</pre>", log["lines"].size(),
                     log["total_lines"].get<std::size_t>(), escape(log["path"].get<std::string>()), escape(text));
}

} // namespace

std::string problem_page(const json& problem, const links& l, const std::string& against) {
  const json& p = problem["problem"];
  const json& solutions = problem["solutions"];
  const json* base = reference_solution(solutions, against);
  std::string cards;
  for (const auto& s : solutions) cards += solution_card(s, base, l);
  const std::int64_t id = problem["campaign"]["id"].get<std::int64_t>();
  const std::string intro =
      fmt::format("<p class=\"meta\">{} · level {} · dtype {} · campaign {} · ranked by: {}</p>",
                  escape(p["title"].get<std::string>()), p["level"].get<int>(), escape(p["dtype"].get<std::string>()),
                  anchor(l, campaign_path(id), problem["campaign"]["name"].get<std::string>()),
                  escape(problem["ranked_by"].get<std::string>()));
  return page(l, "Problem " + p["key"].get<std::string>(),
              intro + whisker_chart("Timing distribution per shape (p10 – median – p90)", "ms", timing_rows(solutions)) +
                  scatter_loglog("Roofline: achieved GFLOP/s against arithmetic intensity", "FLOP per byte", "GFLOP/s",
                                 roofline_points(solutions)) +
                  "<div class=\"cards\">" + (cards.empty() ? "<p>no solutions yet</p>" : cards) + "</div>");
}

std::string evaluation_page(const json& e, const links& l) {
  const std::int64_t campaign = e["campaign"]["id"].get<std::int64_t>();
  std::string facts = kv_row("verdict", verdict_badge(e["verdict"]) + " " + escape(e["reason"].get<std::string>())) +
      kv_row("speedup", format_speedup(e["speedup"])) +
      kv_row("problem", anchor(l, problem_path(campaign, e["problem"].get<std::string>()), e["problem"].get<std::string>())) +
      kv_row("model", anchor(l, model_path(campaign, e["model"].get<std::string>()), e["model"].get<std::string>())) +
      kv_row("campaign", anchor(l, campaign_path(campaign), e["campaign"]["name"].get<std::string>())) +
      kv_row("wall", format_number(e["wall_s"], 1) + " s") +
      kv_row("started / finished", escape(e["started_at"].get<std::string>() + " / " + e["finished_at"].get<std::string>())) +
      kv_row("solution", "<code>" + escape(e["solution_path"].get<std::string>()) + "</code>") +
      kv_row("artifacts", "<code>" + escape(e["artifacts_dir"].get<std::string>()) + "</code>") +
      kv_row("re-run", "<code id=\"rerun\">" + escape(e["rerun"].get<std::string>()) + "</code>");
  std::string artifacts;
  for (const auto& a : e["artifacts"]) artifacts += "<li>" + escape(a["name"].get<std::string>()) + "</li>";
  const std::string environment =
      e["environment"].is_null() ? "<p class=\"note\">unknown</p>" : "<pre>" + escape(e["environment"].dump(2)) + "</pre>";
  return page(l,
              fmt::format("Evaluation {}: {} / {}", e["id"].get<std::int64_t>(), e["problem"].get<std::string>(),
                          e["model"].get<std::string>()),
              "<table class=\"facts\">" + facts + "</table><h2>measurements</h2>" + measurements_table(e["measurements"]) +
                  "<h2>findings</h2>" + findings_list(e["findings"]) + "<h2>details</h2><pre>" + escape(e["details"].dump(2)) +
                  "</pre><h2>log</h2>" + log_block(e["log"]) + "<h2>artifacts</h2><ul>" + artifacts +
                  "</ul><h2>environment</h2>" + environment);
}

} // namespace arbiter::server::detail
