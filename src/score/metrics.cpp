#include "arbiter/score/metrics.hpp"

#include "arbiter/common/error.hpp"
#include "arbiter/runtime/timing_stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace arbiter::score {

std::optional<double> geomean(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  double log_sum = 0;
  for (double value : values) {
    if (!(value > 0) || !std::isfinite(value)) return std::nullopt;
    log_sum += std::log(value);
  }
  return std::exp(log_sum / static_cast<double>(values.size()));
}

double mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double sum = 0;
  for (double value : values) sum += value;
  return sum / static_cast<double>(values.size());
}

double median(const std::vector<double>& values) { return quantile(values, 0.5); }

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return runtime::quantile_sorted(values, q); // the runtime's own, so stored and runtime quantiles agree
}

std::optional<std::uint64_t> on_step(std::uint64_t reading, std::uint64_t step) {
  if (step <= 1) return std::nullopt;
  const std::uint64_t nearest = (reading + step / 2) / step * step;
  const std::uint64_t off = nearest > reading ? nearest - reading : reading - nearest;
  return off <= k_timer_step_tolerance_ns ? std::optional(nearest) : std::nullopt;
}

double stepped_median(std::vector<std::uint64_t> readings, std::uint64_t step) {
  if (readings.empty()) return 0;
  std::sort(readings.begin(), readings.end());
  // A step some reading does not keep to is not the readings' clock's: the plain median. Those that
  // keep to it count as the multiple they sit at.
  std::vector<std::uint64_t> on_steps;
  for (const std::uint64_t r : readings) {
    const auto multiple = on_step(r, step);
    if (!multiple) break;
    on_steps.push_back(*multiple);
  }
  if (on_steps.size() != readings.size() || on_steps.front() == on_steps.back())
    return runtime::quantile_sorted(std::vector<double>(readings.begin(), readings.end()), 0.5);
  readings = std::move(on_steps);
  // The step holding the middle of the readings: `below` readings lie under it, `in` inside it.
  const std::uint64_t middle = readings[(readings.size() - 1) / 2];
  const auto first = std::lower_bound(readings.begin(), readings.end(), middle);
  const auto past = std::upper_bound(first, readings.end(), middle);
  // An even count whose halves part exactly after this step: between it and the next reading, as
  // the plain median is (the same value where the next reading is one step on).
  if (2 * static_cast<std::size_t>(past - readings.begin()) == readings.size())
    return (static_cast<double>(middle) + static_cast<double>(*past)) / 2;
  const auto below = static_cast<double>(first - readings.begin());
  const auto in = static_cast<double>(past - first);
  const auto h = static_cast<double>(step);
  return static_cast<double>(middle) - h / 2 + h * (static_cast<double>(readings.size()) / 2 - below) / in;
}

double pass_at_k(std::int64_t n, std::int64_t c, std::int64_t k) {
  if (n < 0 || c < 0 || c > n || k < 1)
    ARB_THROW(config_error, fmt::format("pass@k needs 0 <= c <= n and k >= 1 (got n={}, c={}, k={})", n, c, k));
  if (c == 0) return 0;
  if (n - c < k) return 1;
  // 1 - C(n-c, k) / C(n, k) = 1 - prod_{i=n-c+1}^{n} (1 - k / i): no factorials, no overflow.
  double all_fail = 1;
  for (std::int64_t i = n - c + 1; i <= n; ++i) all_fail *= 1.0 - static_cast<double>(k) / static_cast<double>(i);
  return 1.0 - all_fail;
}

double model_pass_at_k(const std::vector<store::result_row>& rows, const std::string& model, std::int64_t k,
                       std::int64_t problem_count) {
  if (problem_count <= 0) return 0;
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> samples_and_passes;
  for (const store::result_row& row : rows) {
    if (row.model != model) continue;
    auto& [n, c] = samples_and_passes[row.problem];
    ++n;
    if (row.v == verdict::passed) ++c;
  }
  double sum = 0;
  for (const auto& [problem, counts] : samples_and_passes) sum += pass_at_k(counts.first, counts.second, k);
  return sum / static_cast<double>(problem_count);
}

namespace {

/// What one model did on one problem: its first sample (lowest sample number) decides.
struct problem_outcome {
  const store::result_row* first = nullptr;
  std::int64_t rejected = 0;
};

using per_problem = std::map<std::string, problem_outcome>;
using model_key = std::pair<std::string, std::string>; // model, harness

/// harnesses: one per row, or null for none.
std::map<model_key, per_problem> group_by_model(const std::vector<store::result_row>& rows,
                                                const std::vector<std::string>* harnesses) {
  std::map<model_key, per_problem> models;
  for (std::size_t idx = 0; idx < rows.size(); ++idx) {
    const store::result_row& row = rows[idx];
    problem_outcome& outcome = models[{row.model, harnesses ? (*harnesses)[idx] : std::string()}][row.problem];
    if (row.v == verdict::rejected) ++outcome.rejected;
    if (!outcome.first || row.sample < outcome.first->sample) outcome.first = &row;
  }
  return models;
}

std::vector<std::pair<std::string, std::int64_t>> count_verdicts(const per_problem& problems) {
  constexpr std::size_t k_verdicts = static_cast<std::size_t>(verdict::skipped) + 1;
  std::array<std::int64_t, k_verdicts> counts{};
  for (const auto& [key, outcome] : problems) ++counts[static_cast<std::size_t>(outcome.first->v)];
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (std::size_t idx = 0; idx < k_verdicts; ++idx)
    if (counts[idx] > 0) out.emplace_back(std::string(to_string(static_cast<verdict>(idx))), counts[idx]);
  return out;
}

std::array<double, k_fast_p_thresholds.size()> fast_p(const std::vector<double>& speedups, std::int64_t denominator) {
  std::array<double, k_fast_p_thresholds.size()> shares{};
  if (denominator <= 0) return shares;
  for (std::size_t idx = 0; idx < k_fast_p_thresholds.size(); ++idx) {
    const auto faster =
        std::count_if(speedups.begin(), speedups.end(), [&](double speedup) { return speedup > k_fast_p_thresholds[idx]; });
    shares[idx] = static_cast<double>(faster) / static_cast<double>(denominator);
  }
  return shares;
}

model_summary summarize_model(const std::string& model, const per_problem& problems, std::int64_t denominator) {
  model_summary s;
  s.model = model;
  s.problems = denominator;
  s.attempted = static_cast<std::int64_t>(problems.size());
  std::vector<double> speedups;
  for (const auto& [key, outcome] : problems) {
    s.rejected += outcome.rejected;
    if (outcome.first->v != verdict::passed) continue;
    ++s.passed;
    // A pass without a timing (e.g. a correctness-only run) counts for pass@1, not for speed.
    if (outcome.first->speedup) speedups.push_back(*outcome.first->speedup);
  }
  s.pass_at_1 = denominator > 0 ? static_cast<double>(s.passed) / static_cast<double>(denominator) : 0;
  if (!speedups.empty()) {
    s.mean_speedup = mean(speedups);
    s.median_speedup = median(speedups);
    s.geomean_speedup = geomean(speedups);
    s.kernelarena_score = *s.mean_speedup * *s.median_speedup * s.pass_at_1;
  }
  s.verdict_counts = count_verdicts(problems);
  s.fast_p = fast_p(speedups, denominator);
  return s;
}

std::int64_t distinct_problems(const std::vector<store::result_row>& rows) {
  std::set<std::string> keys;
  for (const store::result_row& row : rows) keys.insert(row.problem);
  return static_cast<std::int64_t>(keys.size());
}

std::vector<model_summary> summarize_rows(const std::vector<store::result_row>& rows, const std::vector<std::string>* harnesses,
                                          std::int64_t problem_count) {
  // Never let pass@1 exceed 1 when the caller's count misses problems the rows cover.
  const std::int64_t denominator = std::max(problem_count, distinct_problems(rows));
  std::vector<model_summary> out;
  for (const auto& [key, problems] : group_by_model(rows, harnesses)) {
    out.push_back(summarize_model(key.first, problems, denominator));
    out.back().harness = key.second;
  }
  std::sort(out.begin(), out.end(), [](const model_summary& a, const model_summary& b) {
    return std::tie(b.kernelarena_score, b.pass_at_1, a.model, a.harness) <
        std::tie(a.kernelarena_score, a.pass_at_1, b.model, b.harness);
  });
  return out;
}

} // namespace

std::vector<model_summary> summarize(const std::vector<store::result_row>& rows, std::int64_t problem_count) {
  return summarize_rows(rows, nullptr, problem_count);
}

std::vector<model_summary> summarize_evaluations(const std::vector<store::evaluation_row>& evaluations,
                                                 std::int64_t problem_count, const std::string& current_guard) {
  std::vector<store::result_row> rows;
  std::vector<std::string> harnesses;
  std::map<model_key, spend> spent;
  std::map<model_key, std::int64_t> stale;
  std::unordered_map<std::string_view, session_meta> parsed; // samples often share one meta.json text
  for (const store::evaluation_row& e : evaluations) {
    if (e.status != "done" || !e.v) continue;
    auto found = parsed.find(e.meta_json);
    if (found == parsed.end()) found = parsed.emplace(e.meta_json, read_session_meta(e.meta_json)).first;
    rows.push_back({e.model, e.problem, e.sample, *e.v, e.speedup});
    harnesses.push_back(found->second.harness);
    spent[{e.model, found->second.harness}] += found->second.spent;
    if (!current_guard.empty() && e.guard_version != current_guard) ++stale[{e.model, found->second.harness}];
  }
  std::vector<model_summary> out = summarize_rows(rows, &harnesses, problem_count);
  for (model_summary& s : out) {
    s.spent = spent[{s.model, s.harness}];
    s.per_solved = per_solved(s.spent, s.passed);
    s.stale_guard = stale[{s.model, s.harness}];
  }
  return out;
}

} // namespace arbiter::score
