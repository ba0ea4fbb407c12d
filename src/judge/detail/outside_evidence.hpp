#pragma once
/// The outside clock's evidence (docs/guard.md, "The outside clock"): per timed shape, the
/// candidate's batch as the orchestrator timed it, set against the reference's batches (its own
/// model, and the batches that call nothing: what a batch costs besides its calls) and against the
/// time the candidate's record claims; the batch's outputs against the reference's.
#include "arbiter/catalog/problem.hpp"
#include "arbiter/guard/dynamic_rules.hpp"
#include "arbiter/store/records.hpp"
#include "arbiter/verify/bundle_cache.hpp"
#include "arbiter/judge/judge.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <vector>

namespace arbiter::judge::detail {

/// Adds to e.outside (the clock checks), e.checks (kind "outside": every batch output, only where
/// `outputs_checked`: the base cases passed), e.channel (batch events out of order, a finished run
/// without a batch for a timed shape) and e.unavailable (a reference without its batches), and
/// writes details["outside_clock"], one object per shape.
void outside_evidence(guard::run_evidence& e, const judge_context& ctx, const catalog::problem& problem, const candidate_run& run,
                      const std::filesystem::path& ref_dir, const std::filesystem::path& eval_dir,
                      const std::vector<store::measurement_record>& measurements, bool outputs_checked,
                      verify::bundle_cache& bundles, nlohmann::json& details);

} // namespace arbiter::judge::detail
