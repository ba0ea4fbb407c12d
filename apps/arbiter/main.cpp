// arbiter: parses the command line and dispatches to a subcommand (src/cli). Exit codes:
// 0 success, 1 failure (bad input, I/O, database), 2 usage, 3 internal error.
#include "arbiter/cli/commands.hpp"
#include "arbiter/common/error.hpp"
#include "arbiter/common/log.hpp"
#include "arbiter/guard/version.hpp"

#include <iostream>

int main(int argc, char** argv) {
  using arbiter::cli::exit_code;
  arbiter::log::init_from_env();
  CLI::App app{"arbiter: evaluates AI-written GPU kernels and ranks the models that wrote them"};
  app.set_version_flag("--version", std::string("arbiter " ARBITER_VERSION ", guard ") + arbiter::guard::guard_version());
  app.require_subcommand(1);
  std::function<int()> handler;
  for (auto& cmd : arbiter::cli::commands()) {
    CLI::App* sub = app.add_subcommand(cmd.name, cmd.help);
    auto run = cmd.setup(*sub);
    sub->callback([&handler, run] { handler = run; });
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : static_cast<int>(exit_code::usage);
  }
  try {
    return handler();
  } catch (const arbiter::internal_error& e) {
    std::cerr << "arbiter: internal error: " << e.what() << '\n';
    return static_cast<int>(exit_code::internal);
  } catch (const std::exception& e) {
    std::cerr << "arbiter: " << e.what() << '\n';
    return static_cast<int>(exit_code::failure);
  }
}
