#pragma once
/// A judgement as the store keeps it, the one way from judge() to store::evaluation_result for the
/// campaign and for `arbiter rejudge`.
#include "detail/judge.hpp"

#include "arbiter/store/records.hpp"

#include <array>

namespace arbiter::pipeline::detail {

/// The verdict, its details (dumped), the speedup (a passed evaluation's only), the measurements,
/// the findings as stored rows, and this build's guard version. Leaves the run's own fields
/// (wall time, artifacts, facts) to the caller.
store::evaluation_result stored_judgement(judgement j);

/// Keys of an evaluation's details that the campaign writes beside the judge's, about the run
/// rather than its judgement (the sandbox, the build, the pruned bundles, the wall times): a new
/// judgement of the same run keeps them.
inline constexpr std::array<const char*, 4> k_run_details{"sandbox", "build", "pruned_bundles", "wall"};

} // namespace arbiter::pipeline::detail
