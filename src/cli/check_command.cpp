#include "arbiter/pipeline/check.hpp"
#include "detail/commands.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace arbiter::cli::detail {

namespace {

struct check_args {
  pipeline::check_options options;
  std::string problem, solution, data;
  bool json = false;
};

void print_human(const pipeline::check_report& report) {
  std::cout << fmt::format("{} on {} (public inputs): {}\n  {}\n", report.problem, report.device, to_string(report.result.v),
                           report.result.reason);
  for (const auto& m : report.measurements)
    if (m.role == "candidate")
      std::cout << fmt::format("  shape {}: {:.4f} ms median{}\n", m.shape, m.median_ms,
                               m.speedup ? fmt::format(", {:.2f}× over eager", *m.speedup) : "");
  if (report.result.v != verdict::passed && !report.run_dir.empty())
    std::cout << "  log: " << (report.run_dir / "log.txt").string() << '\n';
}

int run_check(const check_args& args) {
  pipeline::check_options options = args.options;
  options.problem_dir = args.problem;
  options.solution = args.solution;
  options.data_dir = args.data.empty() ? std::filesystem::path(".arbiter-check") : std::filesystem::path(args.data);
  sandbox::posix_process_runner runner;
  const auto report = pipeline::run_check(options, runner);
  if (args.json) std::cout << pipeline::check_report_json(report).dump(2) << '\n';
  else print_human(report);
  return report.result.v == verdict::passed ? 0 : 1;
}

} // namespace

command check_command() {
  return {
      "check", "Check one solution against one problem on public inputs (no database)", [](CLI::App& app) {
        auto args = std::make_shared<check_args>();
        app.add_option("--problem", args->problem, "Problem folder of a suite")->required();
        app.add_option("--solution", args->solution, "The kernel.py to check")->required();
        app.add_option("--device", args->options.device, "cpu or cuda (default: cuda when a GPU is usable)")
            ->envname("ARBITER_DEVICE");
        app.add_option("--data", args->data, "Folder for the reference cache and runs (default .arbiter-check)")
            ->envname("ARBITER_CHECK_DATA");
        app.add_option("--python", args->options.python, "Python interpreter with torch")->envname("ARBITER_PYTHON");
        app.add_option("--timeout", args->options.timeout_s, "Wall-clock limit per process, seconds")->envname("ARBITER_TIMEOUT");
        app.add_flag("--json", args->json, "JSON output");
        return [args] { return run_check(*args); };
      }};
}

} // namespace arbiter::cli::detail
