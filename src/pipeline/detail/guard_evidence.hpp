#pragma once
/// Gathers what the guard judges a candidate run on: the orchestrator's extra comparisons
/// (mutation, determinism, stress, float64, captured timed outputs; files written by the reference
/// and the candidate, docs/guard.md) and the runner's observations from its events.
#include "arbiter/catalog/problem.hpp"
#include "arbiter/guard/dynamic_rules.hpp"
#include "detail/runs.hpp"

#include <filesystem>

namespace arbiter::pipeline::detail {

/// base_passed: every base case was within tolerance (output checks are only made then).
guard::run_evidence collect_evidence(const job_context& ctx, const catalog::problem& problem, const candidate_run& run,
                                     const std::filesystem::path& ref_dir, const std::filesystem::path& eval_dir,
                                     bool base_passed);

} // namespace arbiter::pipeline::detail
