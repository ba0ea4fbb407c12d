#include "arbiter/common/error.hpp"
#include "arbiter/guard/version.hpp"
#include "arbiter/store/evaluation_json.hpp"
#include "arbiter/store/rerun.hpp"
#include "detail/commands.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <deque>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

namespace arbiter::cli::detail {

namespace {

struct show_args {
  std::string db = "arbiter.db";
  std::int64_t id = 0;
  bool json = false;
  int log_lines = 20;
};

std::string rerun_command(store::store& db, const store::evaluation_view& v, const std::string& db_path) {
  const auto campaign = db.find_campaign(v.campaign);
  return campaign ? store::rerun_command(*campaign, v.problem, v.model, db_path) : "";
}

void print_measurements(std::ostream& out, const std::vector<store::measurement_record>& ms) {
  if (ms.empty()) return;
  out << fmt::format("\n{:<20} {:<10} {:>12} {:>12} {:>12} {:>8} {:>7} {:>8} {:>12} {:>7} {:>7}  {}\n", "shape", "role",
                     "median ms", "p10 ms", "p90 ms", "samples", "noise", "speedup", "host ms", "SM MHz", "capped", "method");
  for (const auto& m : ms)
    out << fmt::format(
        "{:<20} {:<10} {:>12.4f} {:>12.4f} {:>12.4f} {:>8} {:>6.2f}% {:>8} {:>12} {:>7} {:>7}  {}{}\n", m.shape,
        m.role == "baseline" ? m.baseline : m.role, m.median_ms, m.p10_ms, m.p90_ms, m.samples, 100 * m.rel_noise,
        m.speedup ? fmt::format("{:.2f}×", *m.speedup) : "", m.host_median_ms ? fmt::format("{:.4f}", *m.host_median_ms) : "—",
        m.sm_clock_mhz ? fmt::format("{:.0f}", *m.sm_clock_mhz) : "—", m.sm_clock_mhz ? std::to_string(m.power_capped) : "—",
        m.method, m.throttled ? fmt::format(" ({} throttled samples discarded)", m.throttled) : "");
}

void print_failing_cases(std::ostream& out, const nlohmann::json& details) {
  if (!details.contains("cases")) return;
  for (const auto& c : details["cases"])
    if (!c.value("ok", true))
      out << fmt::format("case {} / input set {}: {}\n", c.value("shape", "?"), c.value("input_set", 0), c.value("reason", ""));
}

// The guard's findings: deciding ones (reject, flag) first, each with its evidence.
void print_findings(std::ostream& out, const std::vector<store::finding_record>& findings) {
  if (findings.empty()) return;
  out << "\nfindings (guard; docs/guard.md):\n";
  for (const char* level : {"reject", "flag", "info"})
    for (const auto& f : findings)
      if (f.severity == level) out << fmt::format("  {:<3} {:<6} {:<7} {}\n", f.pattern, f.severity, f.source, f.evidence);
}

void print_traceback(std::ostream& out, const nlohmann::json& details) {
  if (!details.contains("error")) return;
  const std::string traceback = details["error"].value("traceback", "");
  if (traceback.empty()) return;
  out << "\n" << details["error"].value("phase", "?") << " error, as the runner caught it:\n";
  std::istringstream lines(traceback);
  for (std::string line; std::getline(lines, line);) out << "  " << line << '\n';
}

void print_log_tail(std::ostream& out, const std::string& artifacts, int lines) {
  std::ifstream in(artifacts + "/log.txt");
  if (!in) return;
  std::deque<std::string> tail;
  for (std::string line; std::getline(in, line);) {
    tail.push_back(line);
    if (static_cast<int>(tail.size()) > lines) tail.pop_front();
  }
  if (tail.empty()) return;
  out << "\nlog (last " << tail.size() << " lines of " << artifacts << "/log.txt):\n";
  for (const auto& line : tail) out << "  " << line << '\n';
}

/// The guard version an evaluation was judged under, against this build's.
std::string guard_line(const std::string& version) {
  if (version.empty()) return "not recorded (judged before guard versions were); arbiter rejudge judges it again";
  if (version == guard::guard_version()) return version + " (this build's)";
  return version + " (this build's is " + guard::guard_version() + "; arbiter rejudge judges it again)";
}

void print_text(std::ostream& out, store::store& db, const store::evaluation_view& v, const show_args& args) {
  const auto& r = v.result;
  out << fmt::format("evaluation {}: {} / {}{}\n", v.id, v.problem, v.model,
                     v.sample ? fmt::format(" (sample {})", v.sample) : "");
  out << fmt::format("campaign   {} (suite {})\n", v.campaign, v.suite);
  out << fmt::format("verdict    {}: {}\n", v.status == "done" ? std::string(to_string(r.result.v)) : v.status, r.result.reason);
  if (r.speedup) out << fmt::format("speedup    {:.3f}× (geometric mean over shapes)\n", *r.speedup);
  out << fmt::format("wall       {:.1f} s   started {}   finished {}\n", r.wall_s, v.started_at, v.finished_at);
  out << fmt::format("solution   {} (sha256 {})\n", v.solution_path, v.solution_hash.substr(0, 16));
  out << fmt::format("artifacts  {}\n", r.artifacts_dir);
  out << fmt::format("guard      {}\n", guard_line(r.guard_version));
  if (auto cmd = rerun_command(db, v, args.db); !cmd.empty()) out << "re-run     " << cmd << '\n';
  const auto details = nlohmann::json::parse(r.details_json.empty() ? "{}" : r.details_json, nullptr, false);
  if (!details.is_discarded()) print_failing_cases(out, details);
  print_findings(out, r.findings);
  if (!details.is_discarded()) print_traceback(out, details);
  print_measurements(out, r.measurements);
  print_log_tail(out, r.artifacts_dir, args.log_lines);
}

int run_show(const show_args& args) {
  auto db = store::open_store(args.db);
  const auto view = db->evaluation(args.id);
  if (!view) ARB_THROW(config_error, "no evaluation " + std::to_string(args.id) + " in " + args.db);
  if (args.json) std::cout << store::evaluation_json(*view, guard::guard_version()).dump(2) << '\n';
  else print_text(std::cout, *db, *view, args);
  return 0;
}

} // namespace

command show_command() {
  return {"show", "Show one evaluation: verdict, reason, timings, failing cases, log, re-run command", [](CLI::App& app) {
            auto args = std::make_shared<show_args>();
            app.add_option("evaluation", args->id, "Evaluation id")->required();
            add_db_option(app, args->db);
            app.add_flag("--json", args->json, "JSON output");
            app.add_option("--log-lines", args->log_lines, "Lines of the log to print")->capture_default_str();
            return [args] { return run_show(*args); };
          }};
}

} // namespace arbiter::cli::detail
