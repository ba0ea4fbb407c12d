#pragma once
/// The subcommands of the arbiter binary, as a table: main() parses and dispatches, nothing else.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace arbiter::cli {

/// Documented exit codes.
enum class exit_code : int { ok = 0, failure = 1, usage = 2, internal = 3 };

struct command {
  std::string name;
  std::string help;
  /// Adds the subcommand's options to app and returns the handler to run when it is chosen.
  std::function<std::function<int()>(CLI::App& app)> setup;
};

std::vector<command> commands();

} // namespace arbiter::cli
