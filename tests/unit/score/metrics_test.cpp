#include "arbiter/common/error.hpp"
#include "arbiter/score/metrics.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace arbiter;
using arbiter::score::model_summary;
using verdict_counts = std::vector<std::pair<std::string, std::int64_t>>;

namespace {

store::result_row row(const std::string& model, const std::string& problem, int sample, verdict v,
                      std::optional<double> speedup = std::nullopt) {
  return {model, problem, sample, v, speedup};
}

/// C(n, k) through lgamma: an independent check of the product form.
double pass_at_k_by_binomials(std::int64_t n, std::int64_t c, std::int64_t k) {
  const auto log_choose = [](double a, double b) { return std::lgamma(a + 1) - std::lgamma(b + 1) - std::lgamma(a - b + 1); };
  return 1.0 - std::exp(log_choose(double(n - c), double(k)) - log_choose(double(n), double(k)));
}

} // namespace

TEST(metrics, mean_median_geomean) {
  EXPECT_DOUBLE_EQ(score::mean({1, 2, 6}), 3.0);
  EXPECT_DOUBLE_EQ(score::mean({}), 0.0);
  EXPECT_DOUBLE_EQ(score::median({5, 1, 3}), 3.0);
  EXPECT_DOUBLE_EQ(score::median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(score::median({}), 0.0);
  EXPECT_DOUBLE_EQ(*score::geomean({2, 8}), 4.0);
  EXPECT_DOUBLE_EQ(*score::geomean({0.5, 2, 1}), 1.0);
  EXPECT_FALSE(score::geomean({}).has_value());
  EXPECT_FALSE(score::geomean({2, 0}).has_value());
  EXPECT_FALSE(score::geomean({2, -1}).has_value());
}

TEST(metrics, pass_at_k_matches_hand_computed_values) {
  EXPECT_DOUBLE_EQ(score::pass_at_k(10, 3, 1), 0.3);  // 1 - 7/10
  EXPECT_DOUBLE_EQ(score::pass_at_k(5, 2, 2), 0.7);   // 1 - C(3,2)/C(5,2) = 1 - 3/10
  EXPECT_DOUBLE_EQ(score::pass_at_k(10, 1, 5), 0.5);  // 1 - C(9,5)/C(10,5) = 1 - 126/252
  EXPECT_DOUBLE_EQ(score::pass_at_k(4, 2, 3), 1.0);   // n - c < k: every draw of 3 holds a pass
  EXPECT_DOUBLE_EQ(score::pass_at_k(4, 0, 1), 0.0);
  EXPECT_DOUBLE_EQ(score::pass_at_k(1, 1, 1), 1.0);
  EXPECT_DOUBLE_EQ(score::pass_at_k(3, 0, 5), 0.0);   // k > n, nothing passed
}

TEST(metrics, pass_at_k_is_stable_for_large_n) {
  // C(1000, 500) overflows every integer type and double; the product form does not.
  for (auto [n, c, k] : {std::tuple{1000, 10, 10}, std::tuple{1000, 1, 100}, std::tuple{200, 100, 50}}) {
    const double value = score::pass_at_k(n, c, k);
    EXPECT_TRUE(std::isfinite(value));
    EXPECT_NEAR(value, pass_at_k_by_binomials(n, c, k), 1e-9) << n << " " << c << " " << k;
  }
}

TEST(metrics, pass_at_k_rejects_impossible_counts) {
  EXPECT_THROW(score::pass_at_k(3, 4, 1), config_error);
  EXPECT_THROW(score::pass_at_k(3, 1, 0), config_error);
  EXPECT_THROW(score::pass_at_k(-1, 0, 1), config_error);
}

namespace {

/// Five models over four problems (p1..p4), with hand-computed expectations below.
std::vector<store::result_row> small_campaign() {
  return {
      // alpha: first samples p1 pass 2.0, p2 pass 4.0, p3 incorrect, p4 rejected. Later samples ignored.
      row("alpha", "p1", 0, verdict::passed, 2.0),
      row("alpha", "p1", 1, verdict::incorrect),
      row("alpha", "p2", 0, verdict::passed, 4.0),
      row("alpha", "p3", 0, verdict::incorrect),
      row("alpha", "p3", 1, verdict::passed, 10.0),
      row("alpha", "p4", 0, verdict::rejected),
      row("alpha", "p4", 1, verdict::rejected),
      // beta: listed out of sample order on p1; passes p1 1.0, p2 9.0, p3 0.5; no p4.
      row("beta", "p1", 1, verdict::incorrect),
      row("beta", "p1", 0, verdict::passed, 1.0),
      row("beta", "p2", 0, verdict::passed, 9.0),
      row("beta", "p3", 0, verdict::passed, 0.5),
      row("gamma", "p1", 0, verdict::compile_error),
      row("delta", "p2", 0, verdict::timeout),
      // epsilon passed without a timing: counts for pass@1, not for speed.
      row("epsilon", "p1", 0, verdict::passed),
  };
}

} // namespace

TEST(metrics, summarize_small_campaign) {
  const auto rows = score::summarize(small_campaign(), 4);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].model, "alpha");
  EXPECT_EQ(rows[1].model, "beta");
  EXPECT_EQ(rows[2].model, "epsilon"); // score 0 like delta and gamma, but a higher pass@1
  EXPECT_EQ(rows[3].model, "delta");   // then by name
  EXPECT_EQ(rows[4].model, "gamma");

  const model_summary& alpha = rows[0];
  EXPECT_EQ(alpha.problems, 4);
  EXPECT_EQ(alpha.attempted, 4);
  EXPECT_EQ(alpha.passed, 2);
  EXPECT_EQ(alpha.rejected, 2);
  EXPECT_DOUBLE_EQ(alpha.pass_at_1, 0.5);
  EXPECT_DOUBLE_EQ(*alpha.mean_speedup, 3.0);
  EXPECT_DOUBLE_EQ(*alpha.median_speedup, 3.0);
  EXPECT_DOUBLE_EQ(*alpha.geomean_speedup, std::sqrt(8.0));
  EXPECT_DOUBLE_EQ(alpha.kernelarena_score, 4.5); // 3 × 3 × 0.5
  EXPECT_EQ(alpha.verdict_counts, (verdict_counts{{"passed", 2}, {"incorrect", 1}, {"rejected", 1}}));

  const model_summary& beta = rows[1];
  EXPECT_EQ(beta.attempted, 3);
  EXPECT_EQ(beta.passed, 3);
  EXPECT_EQ(beta.rejected, 0);
  EXPECT_DOUBLE_EQ(beta.pass_at_1, 0.75);
  EXPECT_DOUBLE_EQ(*beta.mean_speedup, 3.5);
  EXPECT_DOUBLE_EQ(*beta.median_speedup, 1.0);
  EXPECT_DOUBLE_EQ(*beta.geomean_speedup, std::cbrt(4.5));
  EXPECT_DOUBLE_EQ(beta.kernelarena_score, 2.625); // 3.5 × 1 × 0.75
  EXPECT_EQ(beta.verdict_counts, (verdict_counts{{"passed", 3}}));

  const model_summary& epsilon = rows[2];
  EXPECT_EQ(epsilon.passed, 1);
  EXPECT_DOUBLE_EQ(epsilon.pass_at_1, 0.25);
  EXPECT_FALSE(epsilon.mean_speedup.has_value());
  EXPECT_FALSE(epsilon.geomean_speedup.has_value());
  EXPECT_DOUBLE_EQ(epsilon.kernelarena_score, 0.0);

  const model_summary& gamma = rows[4];
  EXPECT_EQ(gamma.attempted, 1);
  EXPECT_EQ(gamma.passed, 0);
  EXPECT_DOUBLE_EQ(gamma.pass_at_1, 0.0);
  EXPECT_FALSE(gamma.median_speedup.has_value());
  EXPECT_EQ(gamma.verdict_counts, (verdict_counts{{"compile_error", 1}}));
}

TEST(metrics, summarize_denominator_never_below_problems_seen) {
  const auto rows = score::summarize(small_campaign(), 2);
  EXPECT_EQ(rows[0].problems, 4);
  EXPECT_DOUBLE_EQ(rows[0].pass_at_1, 0.5);
  const auto wider = score::summarize(small_campaign(), 8);
  EXPECT_EQ(wider[0].problems, 8);
  EXPECT_DOUBLE_EQ(wider[0].pass_at_1, 0.25);
  EXPECT_DOUBLE_EQ(wider[0].kernelarena_score, 2.25);
}

TEST(metrics, summarize_empty) {
  EXPECT_TRUE(score::summarize({}, 3).empty());
}

TEST(metrics, model_pass_at_k_averages_over_all_problems) {
  // alpha: p1 1 of 2, p2 1 of 1, p3 1 of 2, p4 0 of 2.
  EXPECT_DOUBLE_EQ(score::model_pass_at_k(small_campaign(), "alpha", 1, 4), 0.5);  // (0.5 + 1 + 0.5 + 0) / 4
  EXPECT_DOUBLE_EQ(score::model_pass_at_k(small_campaign(), "alpha", 2, 4), 0.75); // (1 + 1 + 1 + 0) / 4
  EXPECT_DOUBLE_EQ(score::model_pass_at_k(small_campaign(), "gamma", 1, 4), 0.0);
  EXPECT_DOUBLE_EQ(score::model_pass_at_k(small_campaign(), "epsilon", 1, 8), 0.125);
  EXPECT_DOUBLE_EQ(score::model_pass_at_k(small_campaign(), "nobody", 1, 4), 0.0);
}
