#pragma once
/// Gathers what the guard judges a candidate run on: the orchestrator's extra comparisons
/// (mutation, determinism, stress, float64, captured timed outputs; files written by the reference
/// and the candidate, docs/guard.md) and the runner's observations from its events.
#include "arbiter/catalog/problem.hpp"
#include "arbiter/guard/dynamic_rules.hpp"
#include "arbiter/store/records.hpp"
#include "arbiter/verify/bundle_cache.hpp"
#include "arbiter/judge/judge.hpp"

#include <filesystem>

namespace arbiter::judge::detail {

/// Whether each base case (shape-major, input sets inner) was within tolerance; empty when the
/// run ended before its outputs could be compared.
using case_passes = std::vector<bool>;

/// The guard's run evidence. A case's re-runs (in-place mutation, determinism) are checked when
/// that case was correct, so a memo keyed on addresses is caught whichever case the allocator
/// reused an address in; stress, timed-call and float64 checks only when every case was correct.
/// Bundles are read through `bundles`, the judgement's cache.
guard::run_evidence collect_evidence(const judge_context& ctx, const catalog::problem& problem, const candidate_run& run,
                                     const std::filesystem::path& ref_dir, const std::filesystem::path& eval_dir,
                                     const case_passes& passed, verify::bundle_cache& bundles);

/// Per shape, the fastest sealed-set re-run (the case events' fresh_call_ms) beside the candidate's
/// timed median from `measurements` (the larger of device time and host latency), and the same
/// ratio for the reference (its mutation call in `reference`'s case events, its baseline median)
/// on cuda where it has one. Shapes without the candidate's pair are left out.
std::vector<guard::work_check> work_checks(const judge_context& ctx, const runner_events& events, const runner_events& reference,
                                           const std::vector<store::measurement_record>& measurements);

/// Per timed shape, the clock_check spans of the channel's timing record; shapes whose record lacks
/// either span are left out.
std::vector<guard::clock_span> clock_spans(const judge_context& ctx, const runner_events& events);

} // namespace arbiter::judge::detail
