// The human table and the JSON form of a suite check report.
#include "arbiter/suitecheck/suite_check.hpp"

#include <fmt/format.h>

#include <map>
#include <sstream>

namespace arbiter::suitecheck {

namespace {

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : sep) + part;
  return out;
}

std::string ms_text(const std::optional<double>& ms) { return ms ? fmt::format("{:.4f}", *ms) : "-"; }

/// The baseline's median in ms, or "—" where it was not asked for or is unavailable.
std::string baseline_text(const shape_result& s, const char* name) {
  const auto it = s.baselines.find(name);
  if (it == s.baselines.end() || !it->is_object()) return "—";
  const auto ms = it->find("median_ms");
  return ms != it->end() && ms->is_number() ? fmt::format("{:.4f}", ms->get<double>()) : "—";
}

/// "compile: <reason>" → number of shapes, over every unavailable compile or sota baseline.
std::map<std::string, std::size_t> unavailable_reasons(const report& rep) {
  std::map<std::string, std::size_t> reasons;
  for (const auto& p : rep.problems)
    for (const auto& s : p.shapes)
      for (const char* name : {"compile", "sota"})
        if (const auto it = s.baselines.find(name); it != s.baselines.end() && it->is_object() && it->contains("unavailable"))
          ++reasons[std::string(name) + ": " + it->value("unavailable", "")];
  return reasons;
}

constexpr const char* k_row = "{:<34} {:>2}  {:<22} {:>11} {:>11} {:>11} {:>8}  {}\n";

} // namespace

std::string render_table(const report& rep) {
  std::ostringstream out;
  out << fmt::format("suite check: {} on {}\n", rep.suite, rep.device);
  out << fmt::format(fmt::runtime(k_row), "problem", "L", "shape", "ref ms", "compile ms", "sota ms", "peak GiB", "result");
  std::size_t shapes = 0, failed_shapes = 0, failed_problems = 0, skipped = 0;
  for (const auto& p : rep.problems) {
    if (!p.ok()) ++failed_problems;
    if (p.shapes.empty() && p.error.empty()) {
      ++skipped;
      out << fmt::format(fmt::runtime(k_row), p.id, p.level, "-", "-", "—", "—", "-", "skipped: no shape for " + rep.device);
      continue;
    }
    for (const auto& s : p.shapes) {
      ++shapes;
      if (!s.ok) ++failed_shapes;
      const std::string peak = s.peak_gb ? fmt::format("{:.2f}", *s.peak_gb) : "-";
      std::string what = s.ok ? "ok" : "FAIL: " + join(s.failures, "; ");
      if (!s.notes.empty()) what += " (" + join(s.notes, "; ") + ")";
      out << fmt::format(fmt::runtime(k_row), p.id, p.level, s.name, ms_text(s.ref_ms), baseline_text(s, "compile"),
                         baseline_text(s, "sota"), peak, what);
    }
    if (!p.error.empty()) out << fmt::format("{:<34} {:>2}  error: {}\n  log: {}\n", p.id, p.level, p.error, p.log.string());
  }
  out << fmt::format("{} problems, {} shapes checked: {} problems failed ({} shapes){}\n", rep.problems.size(), shapes,
                     failed_problems, failed_shapes,
                     skipped ? fmt::format(", {} with no shape for {}", skipped, rep.device) : "");
  for (const auto& [reason, count] : unavailable_reasons(rep))
    out << fmt::format("unavailable on {} shapes: {}\n", count, reason);
  return out.str();
}

nlohmann::json to_json(const report& rep) {
  nlohmann::json problems = nlohmann::json::array();
  for (const auto& p : rep.problems) {
    nlohmann::json shapes = nlohmann::json::array();
    for (const auto& s : p.shapes)
      shapes.push_back(
          {{"name", s.name},
           {"ok", s.ok},
           {"failures", s.failures},
           {"notes", s.notes},
           {"ref_ms", s.ref_ms ? nlohmann::json(*s.ref_ms) : nlohmann::json()},
           {"peak_gb", s.peak_gb ? nlohmann::json(*s.peak_gb) : nlohmann::json()},
           {"baselines", s.baselines},
           {"inputs", s.io.is_object() ? s.io.value("inputs", nlohmann::json::array()) : nlohmann::json::array()},
           {"outputs", s.io.is_object() ? s.io.value("outputs", nlohmann::json::array()) : nlohmann::json::array()}});
    problems.push_back({{"id", p.id},
                        {"level", p.level},
                        {"ok", p.ok()},
                        {"memory_gb", p.memory_gb},
                        {"error", p.error.empty() ? nlohmann::json() : nlohmann::json(p.error)},
                        {"log", p.log.string()},
                        {"shapes", shapes}});
  }
  return {{"suite", rep.suite}, {"device", rep.device}, {"ok", rep.ok()}, {"problems", problems}};
}

} // namespace arbiter::suitecheck
