#include "arbiter/pipeline/campaign.hpp"
#include "arbiter/store/store.hpp"
#include "detail/commands.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace arbiter::cli::detail {

namespace {

struct eval_args {
  pipeline::eval_options options;
  std::string suite, solutions;
};

int run_eval(const eval_args& args) {
  pipeline::eval_options options = args.options;
  options.suite_dir = args.suite;
  options.solutions_dir = args.solutions;
  auto db = store::open_store(options.db);
  sandbox::posix_process_runner runner;
  auto sink = pipeline::make_console_progress();
  const auto summary = pipeline::run_campaign(options, *db, runner, *sink);
  std::cerr << fmt::format("campaign {}: {} evaluated, {} finished earlier\n", summary.campaign, summary.evaluated,
                           summary.resumed);
  print_leaderboard(std::cout, *db, summary.campaign_id, report::format::table);
  return 0;
}

} // namespace

command eval_command() {
  return {
      "eval", "Evaluate a suite's solutions into the database, then print the leaderboard", [](CLI::App& app) {
        auto args = std::make_shared<eval_args>();
        app.add_option("suite", args->suite, "Suite folder (suite.toml + problems, or KernelBench levelN/)")->required();
        app.add_option("--solutions", args->solutions, "Solutions folder: <problem>/<model>/kernel.py")
            ->required()
            ->envname("ARBITER_SOLUTIONS");
        add_db_option(app, args->options.db);
        app.add_option("--data-dir", args->options.data_dir,
                       "Folder for runs, references and artifacts (default <db>.d; a tmpfs keeps bundles in memory)")
            ->envname("ARBITER_DATA_DIR");
        app.add_option("--models", args->options.models, "Only these models")->delimiter(',');
        app.add_option("--problems", args->options.problems, "Only these problem ids")->delimiter(',');
        app.add_option("--device", args->options.device, "cpu or cuda (default: cuda when a GPU is usable)")
            ->envname("ARBITER_DEVICE");
        app.add_option("--campaign", args->options.campaign, "Campaign name; re-using one resumes it")
            ->envname("ARBITER_CAMPAIGN");
        app.add_option("--python", args->options.python, "Python interpreter with torch")->envname("ARBITER_PYTHON");
        app.add_option("--seeds", args->options.num_seeds, "Input sets per shape (≥3)")
            ->check(CLI::Range(3, 64))
            ->envname("ARBITER_SEEDS");
        app.add_option("--timeout", args->options.timeout_s, "Wall-clock limit per process, seconds")->envname("ARBITER_TIMEOUT");
        app.add_option("--max-time", args->options.timing.max_time_s, "Timing cap per shape, seconds")
            ->envname("ARBITER_MAX_TIME");
        app.add_flag_callback(
               "--no-sandbox", [args] { args->options.sandbox = false; },
               "Run candidate code as arbiter's own user with network and files (development only)")
            ->envname("ARBITER_NO_SANDBOX");
        app.add_flag_callback(
            "--no-static-rules", [args] { args->options.static_rules = false; },
            "Audit: judge on run-time evidence alone (facts computed and kept, no finding from them; campaign "
            "named .../static-rules-off)");
        app.add_flag("--keep-outputs", args->options.keep_outputs,
                     "Keep every tensor bundle (by default those of 16 MiB and more are removed once judged)")
            ->envname("ARBITER_KEEP_OUTPUTS");
        app.add_option("--prestart", args->options.prestart,
                       "Start this many of the next candidate processes ahead, behind a gate, with their problems' references "
                       "(default: 2 on cuda, 0 on cpu)")
            ->check(CLI::Range(0, 16))
            ->envname("ARBITER_PRESTART");
        app.add_option(
               "--prebuild", args->options.prebuild,
               "Build every solution on CPU cores ahead of its turn: on (each candidate waits for its build), off, or "
               "auto (on cuda: on, the wait only with torch 2.1 and later, whose load_inline reuses a build; on cpu: off, "
               "since a compile would share the CPU the candidate is timed on)")
            ->check(CLI::IsMember({"auto", "on", "off"}))
            ->envname("ARBITER_PREBUILD");
        // Callbacks run in this order, so a --calibrate given on the command line wins over ARBITER_NO_CALIBRATE.
        app.add_flag_callback(
               "--no-calibrate", [args] { args->options.calibrate = pipeline::calibration::no; },
               "Never measure the hardware's peaks (see arbiter calibrate)")
            ->envname("ARBITER_NO_CALIBRATE");
        app.add_flag_callback(
            "--calibrate", [args] { args->options.calibrate = pipeline::calibration::yes; },
            "Measure the hardware's peaks first where none are stored, on cpu too (default: cuda only)");
        return [args] { return run_eval(*args); };
      }};
}

} // namespace arbiter::cli::detail
