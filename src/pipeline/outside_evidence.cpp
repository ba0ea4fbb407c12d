#include "detail/outside_evidence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>

namespace arbiter::pipeline::detail {

namespace fs = std::filesystem;

namespace {

constexpr int k_overhead_batches = 3; // python/arbiter_runner/outside.py OVERHEAD_REPEATS

/// The time a role's record claims for one call: the median on the host clock; on cuda the larger
/// of device time and host latency, since back-to-back calls cost whichever the host or the device
/// takes longer for (a call shorter than its launch runs at the launch rate).
std::optional<double> claimed_ms(const std::vector<store::measurement_record>& measurements, const std::string& shape,
                                 const char* role) {
  for (const auto& m : measurements)
    if (m.role == role && m.shape == shape && m.median_ms > 0) return std::max(m.median_ms, m.host_median_ms.value_or(0.0));
  return std::nullopt;
}

/// The reference's overhead batches: the fastest wall and the spread of the three.
std::optional<std::pair<double, double>> overhead(const outside_record& reference, std::size_t shape_idx) {
  double low = std::numeric_limits<double>::infinity(), high = 0;
  for (int repeat_idx = 0; repeat_idx < k_overhead_batches; ++repeat_idx) {
    const auto batch = find_batch(reference, shape_idx, "overhead" + std::to_string(repeat_idx));
    if (!batch) return std::nullopt;
    low = std::min(low, batch->wall_ms);
    high = std::max(high, batch->wall_ms);
  }
  return std::make_pair(low, high - low);
}

struct shape_batches {
  outside_batch candidate, reference;
  double overhead_ms = 0;           ///< for the candidate's batch
  double reference_overhead_ms = 0; ///< for the reference's: its own no-call batches
  double spread_ms = 0;
};

/// Both sides' batches of a shape; what is missing goes to the evidence and nullopt comes back.
std::optional<shape_batches> batches_of(guard::run_evidence& e, const candidate_run& run,
                                        const std::optional<outside_record>& reference, std::size_t shape_idx,
                                        const std::string& shape) {
  const auto candidate = find_batch(run.outside, shape_idx, "candidate");
  if (!candidate) {
    if (run.events.done) e.channel.push_back("shape " + shape + " was timed but no outside-clock batch ran");
    return std::nullopt;
  }
  const auto own = reference ? find_batch(*reference, shape_idx, "reference") : std::nullopt;
  const auto cost = reference ? overhead(*reference, shape_idx) : std::nullopt;
  if (!own || !cost) {
    e.unavailable.push_back("the reference's outside-clock batches for shape " + shape);
    return std::nullopt;
  }
  // The candidate's own no-call batch, timed beside its batch under the same load and the same
  // sandbox, is its overhead, up to guard::k_outside_own_overhead_cap times the reference's: a
  // process that slows it hides at most that much, one that skips its work only counts its calls
  // dearer. (A sandboxed process moved the same files 3x slower than the reference on the CPU host.)
  double overhead_ms = cost->first;
  if (const auto mine = find_batch(run.outside, shape_idx, "overhead"))
    overhead_ms = std::min(mine->wall_ms, guard::k_outside_own_overhead_cap * cost->first);
  return shape_batches{*candidate, *own, overhead_ms, cost->first, cost->second};
}

double per_call(const outside_batch& batch, double overhead_ms) {
  return std::max(0.0, batch.wall_ms - overhead_ms) / std::max(batch.calls, 1);
}

void check_outputs(guard::run_evidence& e, const catalog::problem& problem, const fs::path& ref_dir,
                   const fs::path& eval_dir, std::size_t shape_idx, const std::string& shape, int calls,
                   verify::bundle_cache& bundles) {
  const std::string idx = std::to_string(shape_idx);
  for (int set_idx = 0; set_idx < calls; ++set_idx) {
    const std::string name = std::to_string(set_idx) + ".arbb";
    const auto c = verify::compare_files(ref_dir / "expected" / idx / "outside" / name,
                                         eval_dir / "outside-kept" / idx / "candidate" / name, problem.tol, bundles);
    e.checks.push_back({"outside", fmt::format("shape {}, outside set {}", shape, set_idx), c.ok, c.reason, false});
  }
}

} // namespace

void outside_evidence(guard::run_evidence& e, const job_context& ctx, const catalog::problem& problem,
                      const candidate_run& run, const fs::path& ref_dir, const fs::path& eval_dir,
                      const std::vector<store::measurement_record>& measurements, bool outputs_checked,
                      verify::bundle_cache& bundles, nlohmann::json& details) {
  for (const auto& fault : run.outside.faults) e.channel.push_back("outside clock: " + fault);
  const auto reference = read_outside(ref_dir / "outside.json");
  details["outside_clock"] = nlohmann::json::array();
  for (std::size_t shape_idx = 0; shape_idx < ctx.shapes.size(); ++shape_idx) {
    const std::string& shape = ctx.shapes[shape_idx].name;
    const auto claimed = claimed_ms(measurements, shape, "candidate");
    const auto reference_claimed = claimed_ms(measurements, shape, "baseline");
    if (!claimed || !reference_claimed) continue; // not timed: nothing claimed
    const auto b = batches_of(e, run, reference, shape_idx, shape);
    if (!b) continue;
    guard::outside_check check{shape, b->candidate.calls, per_call(b->candidate, b->overhead_ms), *claimed, 0, 0};
    const double reference_per_call = per_call(b->reference, b->reference_overhead_ms);
    check.allowed_ratio = std::max(guard::k_outside_min_ratio, guard::k_outside_ref_factor * reference_per_call / *reference_claimed);
    check.slack_ms = (b->spread_ms + guard::k_outside_overhead_noise * b->overhead_ms) / std::max(check.calls, 1) +
                     guard::k_outside_floor_ms;
    e.outside.push_back(check);
    details["outside_clock"].push_back({{"shape", shape}, {"calls", check.calls}, {"wall_ms", b->candidate.wall_ms},
                                        {"overhead_ms", b->overhead_ms}, {"overhead_spread_ms", b->spread_ms},
                                        {"per_call_ms", check.per_call_ms}, {"claimed_ms", check.claimed_ms},
                                        {"reference_per_call_ms", reference_per_call},
                                        {"reference_claimed_ms", *reference_claimed},
                                        {"allowed_ms", check.claimed_ms * check.allowed_ratio + check.slack_ms}});
    if (outputs_checked) check_outputs(e, problem, ref_dir, eval_dir, shape_idx, shape, b->candidate.calls, bundles);
  }
}

} // namespace arbiter::pipeline::detail
