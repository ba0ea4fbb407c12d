#pragma once
/// Rules over a solution's static facts (python -m arbiter_runner facts, docs/guard.md): which
/// facts break which catalog pattern, data-driven from the problem's and suite's [rules].
#include "arbiter/catalog/problem.hpp"
#include "arbiter/guard/finding.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace arbiter::guard {

/// Findings for the facts document {"languages": [...], "facts": [{"kind", "what", "where",
/// "function"}]}. A malformed document gives no findings (facts are evidence, never required).
std::vector<finding> static_findings(const nlohmann::json& facts, const catalog::rules& rules);

} // namespace arbiter::guard
