// `arbiter suite check <suite>`: vets a suite's references (docs/suites.md).
#include "arbiter/suitecheck/suite_check.hpp"
#include "detail/commands.hpp"

#include <algorithm>
#include <iostream>
#include <memory>

namespace arbiter::cli::detail {

namespace {

struct suite_check_args {
  suitecheck::options options;
  std::string suite, work;
  std::vector<std::string> baselines{"compile", "sota"};
  bool json = false;
};

int run_suite_check(const suite_check_args& args) {
  suitecheck::options options = args.options;
  const auto wants = [&](const char* name) {
    return std::find(args.baselines.begin(), args.baselines.end(), name) != args.baselines.end();
  };
  options.time_compile = wants("compile");
  options.time_sota = wants("sota");
  options.suite_dir = args.suite;
  options.work_dir = args.work.empty() ? std::filesystem::path(".arbiter-suite-check") : std::filesystem::path(args.work);
  sandbox::posix_process_runner runner;
  const suitecheck::report rep = suitecheck::run(options, runner);
  if (args.json) std::cout << suitecheck::to_json(rep).dump(2) << '\n';
  else std::cout << suitecheck::render_table(rep);
  return rep.ok() ? 0 : 1;
}

} // namespace

command suite_command() {
  return {
      "suite", "Work with a suite of problems (check: vet its references)", [](CLI::App& app) {
        auto args = std::make_shared<suite_check_args>();
        app.require_subcommand(1);
        CLI::App* check = app.add_subcommand("check",
                                             "Check every problem's reference: deterministic, seed-dependent, "
                                             "not degenerate, within its memory budget; record reference times");
        check->add_option("suite", args->suite, "The suite folder")->required();
        check->add_option("--device", args->options.device, "cpu or cuda (default: cuda when a GPU is usable)")
            ->envname("ARBITER_DEVICE");
        check->add_option("--problem", args->options.only, "Check only these problem ids (repeatable)");
        check->add_option("--python", args->options.python, "Python interpreter with torch")->envname("ARBITER_PYTHON");
        check->add_option("--work", args->work, "Folder for jobs, events and logs (default .arbiter-suite-check)");
        check->add_option("--timeout", args->options.timeout_s, "Wall-clock limit per problem, seconds")->capture_default_str();
        check->add_option("--repeats", args->options.repeats, "Timed calls per shape (the median is reported)")
            ->capture_default_str();
        check
            ->add_option("--baselines", args->baselines,
                         "Baselines timed beside eager where problem.toml asks for them: compile, sota, none "
                         "(torch.compile compiles per shape: minutes on a whole suite)")
            ->check(CLI::IsMember({"compile", "sota", "none"}))
            ->capture_default_str();
        check->add_flag("--json", args->json, "JSON output");
        return [args] { return run_suite_check(*args); };
      }};
}

} // namespace arbiter::cli::detail
