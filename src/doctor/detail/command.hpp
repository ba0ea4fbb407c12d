#pragma once
/// Runs a trusted probe command (python, nvcc, ldconfig) and captures its output. Private to the
/// doctor; untrusted code goes through arbiter::sandbox instead.
#include <string>
#include <vector>

namespace arbiter::doctor::detail {

struct command_output {
  bool ran = false;  ///< the command ran and exited with status 0
  std::string text;  ///< stdout, with stderr too when asked
  std::string error; ///< why not: "exit status 1", "popen: ..."
};

/// Runs argv through /bin/sh with every argument single-quoted; stdin from /dev/null.
/// `with_stderr` appends 2>&1, otherwise stderr is discarded.
command_output run_command(const std::vector<std::string>& argv, bool with_stderr);

/// The directory entries of PATH joined with `name`, first executable match; empty if none.
std::string find_on_path(const std::string& name);

/// The last non-empty line of `text`, without its newline.
std::string last_line(const std::string& text);

} // namespace arbiter::doctor::detail
