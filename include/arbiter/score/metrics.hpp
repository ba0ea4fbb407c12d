#pragma once
/// Pure metric arithmetic (docs/design.md §5 Metrics). No I/O.
#include "arbiter/score/spend.hpp"
#include "arbiter/store/records.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace arbiter::score {

/// Geometric mean; nullopt for an empty input or any non-positive value.
std::optional<double> geomean(const std::vector<double>& values);
double mean(const std::vector<double>& values);   ///< 0 for empty
double median(const std::vector<double>& values); ///< 0 for empty
/// The q-quantile (0 <= q <= 1), linear between the two nearest ranks; 0 for empty.
double quantile(std::vector<double> values, double q);
/// How far (ns) a timer reading may sit from a multiple of the timer's step and still be read as
/// that multiple.
inline constexpr std::uint64_t k_timer_step_tolerance_ns = 1;
/// The multiple of step a timer reading is read as: the nearest one, where the reading lies within
/// k_timer_step_tolerance_ns of it; nullopt where it does not, or where step is 0 or 1.
std::optional<std::uint64_t> on_step(std::uint64_t reading, std::uint64_t step);
/// The median of readings of a clock that advances in steps of `step` (the GPU's global timer, which
/// CUPTI's timestamps come from, steps 32 ns on H100 and H200: a 1.3 µs kernel reads 1248 or 1280
/// ns). Each reading v stands for a time spread evenly over [v - step/2, v + step/2), and the median
/// is interpolated inside the step it falls in (the median of grouped data): it resolves between
/// two neighbouring readings as the share of each moves, where the plain median jumps from one to
/// the other. A reading within k_timer_step_tolerance_ns of a multiple of the step counts as that
/// multiple (CUPTI maps the GPU's timer onto the host's clock, which moves a reading by a
/// nanosecond). With a step of 0 or 1, a step some reading does not keep to, or readings of one
/// value, it is the plain median. 0 for empty.
double stepped_median(std::vector<std::uint64_t> readings, std::uint64_t step);
/// Unbiased pass@k estimator: 1 - C(n-c, k) / C(n, k); 1 when n - c < k.
double pass_at_k(std::int64_t n, std::int64_t c, std::int64_t k);
/// A model's campaign pass@k: pass_at_k(samples, passed samples, k) per problem it attempted,
/// summed and divided by problem_count (unattempted problems count 0). 0 when problem_count <= 0.
double model_pass_at_k(const std::vector<store::result_row>& rows, const std::string& model, std::int64_t k,
                       std::int64_t problem_count);

/// The p of fast_p (docs/design.md §5 Metrics), in the order of model_summary::fast_p.
inline constexpr std::array<double, 5> k_fast_p_thresholds{0, 0.5, 1, 1.5, 2};

/// One leaderboard row: a model, driven by one harness, over one campaign.
struct model_summary {
  std::string model;
  std::string harness;        ///< the solutions' meta.json `harness`; "" where they name none
  std::int64_t problems = 0;  ///< problems in the campaign (the denominator of pass@1)
  std::int64_t attempted = 0; ///< problems the model has a solution for
  std::int64_t passed = 0;    ///< problems whose first sample passed
  std::int64_t rejected = 0;  ///< evaluations rejected by the guard
  /// Finished evaluations (all samples) judged under a guard version other than the current one
  /// (summarize_evaluations' current_guard), or before versions were recorded: `arbiter rejudge`
  /// judges them again.
  std::int64_t stale_guard = 0;
  double pass_at_1 = 0;
  std::optional<double> mean_speedup, median_speedup, geomean_speedup; ///< over passed problems
  double kernelarena_score = 0;                                        ///< mean × median × pass@1 (0 when nothing passed)
  std::vector<std::pair<std::string, std::int64_t>> verdict_counts;    ///< verdict name → count, first samples
  /// fast_p per k_fast_p_thresholds: share of all problems whose first sample passed with a measured
  /// speedup > p (a pass without a timing counts for none of them).
  std::array<double, k_fast_p_thresholds.size()> fast_p{};
  /// What the sessions behind every finished evaluation of the row (all samples) spent, summed
  /// (docs/metrics.md); empty parts where no meta.json says.
  spend spent;
  /// spent ÷ passed per part; empty when the part is unknown or nothing passed.
  spend per_solved;
};

/// Builds one row per model, sorted by KernelArena score, then pass@1, then name.
/// problem_count is the campaign's number of problems. Rows carry no harness and no spend.
std::vector<model_summary> summarize(const std::vector<store::result_row>& rows, std::int64_t problem_count);
/// The leaderboard over a campaign's evaluations (store::evaluation_rows; running ones are
/// skipped): one row per (model, harness of its solution's meta.json), each with its spend and
/// spend per solved problem; sorted as above, then by harness. With current_guard (the build's
/// guard::guard_version()), each row counts its evaluations judged under another version (stale_guard).
std::vector<model_summary> summarize_evaluations(const std::vector<store::evaluation_row>& evaluations,
                                                 std::int64_t problem_count, const std::string& current_guard = "");

} // namespace arbiter::score
