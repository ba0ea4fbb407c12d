#pragma once
/// `arbiter agent run`: one session per (model, problem) of a suite, several at once.
#include "arbiter/agent/session.hpp"

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace arbiter::agent {

struct run_options {
  session_config session; ///< out_root, endpoint, budget, prices, tools; setup.device may be empty
  std::filesystem::path suite_dir;
  std::vector<std::string> problems; ///< empty = every problem of the suite
  int parallel = 1;
};

/// Makes one HTTP client per worker thread.
using client_factory = std::function<std::unique_ptr<http_client>()>;

/// Runs the sessions, `parallel` at a time, in problem order; returns their results in that order.
/// Throws config_error for an unknown problem id or an empty selection; a session that throws
/// (its own files cannot be written) is reported with stop reason model_error and its error.
std::vector<session_result> run_sessions(const run_options& options, const client_factory& make_client,
                                         sandbox::process_runner& runner, const sleeper& sleep);

} // namespace arbiter::agent
