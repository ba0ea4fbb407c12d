#pragma once
/// Rules over how the candidate's processes ended, as the sandbox saw them from outside
/// (sandbox::process_result): processes that outlived the runner (H6).
#include "arbiter/guard/finding.hpp"

#include <optional>
#include <string>
#include <vector>

namespace arbiter::guard {

/// H6, reject, when any process of the evaluation outlived the runner (`survivors`: their command
/// lines, read before the sandbox killed them): a process that left the runner's group kept
/// running past its end, a daemon burning CPU while others are timed. Evidence: "processes
/// outlived the runner: 2 (python3 -m ...; python3 -m ...)". None when there were none.
std::optional<finding> survivor_finding(const std::vector<std::string>& survivors);

} // namespace arbiter::guard
