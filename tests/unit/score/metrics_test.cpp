#include "arbiter/common/error.hpp"
#include "arbiter/score/metrics.hpp"
#include "arbiter/score/ranking.hpp"

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
  EXPECT_DOUBLE_EQ(score::quantile({30, 10, 20, 40, 50}, 0.1), 14.0); // linear between ranks
  EXPECT_DOUBLE_EQ(score::quantile({30, 10, 20, 40, 50}, 0.9), 46.0);
  EXPECT_DOUBLE_EQ(score::quantile({7}, 0.1), 7.0);
  EXPECT_DOUBLE_EQ(*score::geomean({2, 8}), 4.0);
  EXPECT_DOUBLE_EQ(*score::geomean({0.5, 2, 1}), 1.0);
  EXPECT_FALSE(score::geomean({}).has_value());
  EXPECT_FALSE(score::geomean({2, 0}).has_value());
  EXPECT_FALSE(score::geomean({2, -1}).has_value());
}

TEST(metrics, stepped_median_resolves_between_two_readings_of_a_stepping_clock) {
  // A kernel read as 1248 or 1280 ns by a 32 ns timer: as the share of 1280 grows, the plain median
  // jumps once from 1248 to 1280; the stepped median rises with every shift.
  double before = 0;
  for (int longer = 0; longer <= 10; ++longer) {
    std::vector<std::uint64_t> readings(10, 1248);
    std::fill(readings.begin(), readings.begin() + longer, 1280);
    const double m = score::stepped_median(readings, 32);
    EXPECT_GE(m, 1248 - 16.0);
    EXPECT_LE(m, 1280 + 16.0);
    if (longer > 0) {
      EXPECT_GT(m, before) << longer << " of 10 at 1280";
    }
    before = m;
  }
  // Six at 1248, four at 1280: the middle falls 5/6 of the way through the 1248 step [1232, 1264).
  EXPECT_DOUBLE_EQ(score::stepped_median({1280, 1248, 1248, 1280, 1248, 1248, 1280, 1248, 1280, 1248}, 32), 1232 + 32.0 * 5 / 6);
  // One value, or no step: the plain median.
  EXPECT_DOUBLE_EQ(score::stepped_median({1248, 1248, 1248}, 32), 1248.0);
  EXPECT_DOUBLE_EQ(score::stepped_median({4, 1, 3, 2}, 1), 2.5);
  EXPECT_DOUBLE_EQ(score::stepped_median({4, 1, 3, 2}, 0), 2.5);
  EXPECT_DOUBLE_EQ(score::stepped_median({}, 32), 0.0);
  // Readings far apart: the stepped median stays the plain one where no step holds two of them,
  // an even count's included (between the two middle readings, not at the edge of one's step).
  EXPECT_DOUBLE_EQ(score::stepped_median({3200, 6400, 9600}, 32), 6400.0);
  EXPECT_DOUBLE_EQ(score::stepped_median({3200, 6400, 9600, 12800}, 32), 8000.0);
  EXPECT_DOUBLE_EQ(score::stepped_median({1248, 1248, 1280, 1280}, 32), 1264.0);
  // A step one reading does not keep to is not their clock's: the plain median.
  EXPECT_DOUBLE_EQ(score::stepped_median({1248, 1250, 1250, 1280, 1280}, 32), 1250.0);
  // Readings a nanosecond off the step (the timer mapped onto the host's clock) count as the
  // multiple they sit at: the same median as the readings on it.
  EXPECT_DOUBLE_EQ(score::stepped_median({1281, 1247, 1249, 1279, 1248, 1248, 1280, 1247, 1281, 1249}, 32), 1232 + 32.0 * 5 / 6);
  EXPECT_DOUBLE_EQ(score::stepped_median({1247, 1249, 1281}, 32), 1232 + 32.0 * 1.5 / 2);
}

TEST(metrics, a_reading_within_a_nanosecond_of_a_step_is_read_as_that_step) {
  EXPECT_EQ(score::on_step(1281, 32), 1280u);
  EXPECT_EQ(score::on_step(1247, 32), 1248u);
  EXPECT_EQ(score::on_step(1280, 32), 1280u);
  EXPECT_FALSE(score::on_step(1250, 32).has_value());
  EXPECT_FALSE(score::on_step(1280, 1).has_value()); // no step to read it on
  EXPECT_FALSE(score::on_step(1280, 0).has_value());
}

TEST(metrics, pass_at_k_matches_hand_computed_values) {
  EXPECT_DOUBLE_EQ(score::pass_at_k(10, 3, 1), 0.3); // 1 - 7/10
  EXPECT_DOUBLE_EQ(score::pass_at_k(5, 2, 2), 0.7);  // 1 - C(3,2)/C(5,2) = 1 - 3/10
  EXPECT_DOUBLE_EQ(score::pass_at_k(10, 1, 5), 0.5); // 1 - C(9,5)/C(10,5) = 1 - 126/252
  EXPECT_DOUBLE_EQ(score::pass_at_k(4, 2, 3), 1.0);  // n - c < k: every draw of 3 holds a pass
  EXPECT_DOUBLE_EQ(score::pass_at_k(4, 0, 1), 0.0);
  EXPECT_DOUBLE_EQ(score::pass_at_k(1, 1, 1), 1.0);
  EXPECT_DOUBLE_EQ(score::pass_at_k(3, 0, 5), 0.0); // k > n, nothing passed
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

TEST(metrics, summarize_empty) { EXPECT_TRUE(score::summarize({}, 3).empty()); }

TEST(metrics, model_pass_at_k_averages_over_all_problems) {
  // alpha: p1 1 of 2, p2 1 of 1, p3 1 of 2, p4 0 of 2.
  EXPECT_DOUBLE_EQ(score::model_pass_at_k(small_campaign(), "alpha", 1, 4), 0.5);  // (0.5 + 1 + 0.5 + 0) / 4
  EXPECT_DOUBLE_EQ(score::model_pass_at_k(small_campaign(), "alpha", 2, 4), 0.75); // (1 + 1 + 1 + 0) / 4
  EXPECT_DOUBLE_EQ(score::model_pass_at_k(small_campaign(), "gamma", 1, 4), 0.0);
  EXPECT_DOUBLE_EQ(score::model_pass_at_k(small_campaign(), "epsilon", 1, 8), 0.125);
  EXPECT_DOUBLE_EQ(score::model_pass_at_k(small_campaign(), "nobody", 1, 4), 0.0);
}

// ---- spend per solved problem, rows per (model, harness) ---------------------------------------

namespace {

store::evaluation_row evaluation(const std::string& model, const std::string& problem, int sample, verdict v,
                                 const std::string& meta, std::optional<double> speedup = std::nullopt) {
  store::evaluation_row e;
  e.model = model;
  e.problem = problem;
  e.sample = sample;
  e.status = "done";
  e.v = v;
  e.speedup = speedup;
  e.meta_json = meta;
  return e;
}

const model_summary& summary_of(const std::vector<model_summary>& rows, const std::string& model, const std::string& harness) {
  for (const auto& row : rows)
    if (row.model == model && row.harness == harness) return row;
  throw std::runtime_error("no row " + model + " · " + harness);
}

} // namespace

TEST(spend, reads_the_agent_meta_json) {
  const auto meta = score::read_session_meta(
      R"({"harness":"arbiter-basic","tokens":{"input":300,"output":30,"cache_read":150,"cache_write":15,"total":495},)"
      R"("cost_usd":0.0012,"wall_s":12.5})");
  EXPECT_EQ(meta.harness, "arbiter-basic");
  EXPECT_EQ(meta.spent.tokens, 330);
  EXPECT_EQ(meta.spent.cache_tokens, 165);
  EXPECT_EQ(meta.spent.cost_usd, 0.0012);
  EXPECT_EQ(meta.spent.wall_s, 12.5);
}

TEST(spend, reads_other_shapes_and_leaves_the_unsaid_empty) {
  const auto flat = score::read_session_meta(R"({"input_tokens":30,"output_tokens":20,"cost":0.5})");
  EXPECT_EQ(flat.spent.tokens, 50);
  EXPECT_FALSE(flat.spent.cache_tokens);
  EXPECT_EQ(flat.spent.cost_usd, 0.5);
  EXPECT_FALSE(flat.spent.wall_s);
  EXPECT_EQ(score::read_session_meta(R"({"tokens":1234})").spent.tokens, 1234);
  EXPECT_EQ(score::read_session_meta(R"({"tokens":{"total":99}})").spent.tokens, 99);
  const auto no_price = score::read_session_meta(R"({"harness":"codex","cost_usd":null,"wall_s":"soon"})");
  EXPECT_EQ(no_price.harness, "codex");
  EXPECT_FALSE(no_price.spent.cost_usd);
  EXPECT_FALSE(no_price.spent.wall_s);
  for (const char* bad : {"", "{}", "[1,2]", "not json", R"({"harness":7})"}) {
    const auto empty = score::read_session_meta(bad);
    EXPECT_EQ(empty.harness, "") << bad;
    EXPECT_FALSE(empty.spent.tokens || empty.spent.cache_tokens || empty.spent.cost_usd || empty.spent.wall_s) << bad;
  }
}

TEST(spend, sums_keep_known_parts_and_divide_by_solved) {
  score::spend total;
  total += {100.0, std::nullopt, 0.5, 10.0};
  total += {50.0, 20.0, std::nullopt, std::nullopt};
  EXPECT_EQ(total.tokens, 150);
  EXPECT_EQ(total.cache_tokens, 20);
  EXPECT_EQ(total.cost_usd, 0.5);
  const auto per = score::per_solved(total, 2);
  EXPECT_EQ(per.tokens, 75);
  EXPECT_EQ(per.wall_s, 5);
  EXPECT_FALSE(score::per_solved(total, 0).tokens); // nothing solved: "—", not infinity
  EXPECT_FALSE(score::per_solved(std::optional<double>{}, 3));
}

TEST(metrics, summarize_evaluations_splits_a_model_by_harness_and_sums_its_sessions) {
  const std::string basic =
      R"({"harness":"arbiter-basic","tokens":{"input":1000,"output":100,"cache_read":500},"cost_usd":0.2,"wall_s":60})";
  const std::string claude = R"({"harness":"claude-code","tokens":{"input":10,"output":90},"wall_s":30})";
  std::vector<store::evaluation_row> evaluations{
      evaluation("m", "a", 0, verdict::passed, basic, 2.0),
      evaluation("m", "b", 0, verdict::incorrect, basic), // a failed session still costs
      evaluation("m", "a", 0, verdict::passed, claude, 1.0),
      evaluation("m", "b", 0, verdict::rejected, claude),
      evaluation("hand", "a", 0, verdict::passed, "{}", 1.5),
  };
  auto running = evaluation("m", "c", 0, verdict::passed, basic);
  running.status = "running";
  running.v.reset();
  evaluations.push_back(running);
  const auto rows = score::summarize_evaluations(evaluations, 3);
  ASSERT_EQ(rows.size(), 3u);
  const auto& m_basic = summary_of(rows, "m", "arbiter-basic");
  EXPECT_EQ(m_basic.passed, 1);
  EXPECT_EQ(m_basic.spent.tokens, 2200);
  EXPECT_EQ(m_basic.per_solved.tokens, 2200);
  EXPECT_EQ(m_basic.per_solved.cache_tokens, 1000);
  EXPECT_DOUBLE_EQ(*m_basic.per_solved.cost_usd, 0.4);
  EXPECT_EQ(m_basic.per_solved.wall_s, 120);
  const auto& m_claude = summary_of(rows, "m", "claude-code");
  EXPECT_EQ(m_claude.rejected, 1);
  EXPECT_EQ(m_claude.per_solved.tokens, 200);
  EXPECT_FALSE(m_claude.per_solved.cost_usd); // no price in its meta.json
  EXPECT_FALSE(m_claude.per_solved.cache_tokens);
  const auto& hand = summary_of(rows, "hand", "");
  EXPECT_FALSE(hand.per_solved.tokens);
  // Ranked as before: score 2 × 2 × 1/3 first; ties broken by model, then harness.
  EXPECT_EQ(rows[0].harness, "arbiter-basic");
  EXPECT_EQ(rows[1].model, "hand");
}

TEST(metrics, summarize_evaluations_says_nothing_per_solved_when_nothing_passed) {
  const std::string meta = R"({"harness":"h","tokens":{"input":5,"output":5},"cost_usd":1,"wall_s":9})";
  const auto rows = score::summarize_evaluations({evaluation("m", "a", 0, verdict::incorrect, meta)}, 1);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].spent.tokens, 10);
  EXPECT_FALSE(rows[0].per_solved.tokens || rows[0].per_solved.cost_usd || rows[0].per_solved.wall_s);
}

TEST(metrics, summarize_evaluations_counts_those_judged_under_another_guard) {
  std::vector<store::evaluation_row> evaluations{
      evaluation("m", "a", 0, verdict::passed, "{}", 2.0), evaluation("m", "b", 0, verdict::incorrect, "{}"),
      evaluation("m", "c", 1, verdict::rejected, "{}"), evaluation("n", "a", 0, verdict::passed, "{}", 1.0)};
  evaluations[0].guard_version = "new";
  evaluations[1].guard_version = "old";
  evaluations[2].guard_version = ""; // judged before versions were recorded
  evaluations[3].guard_version = "new";
  auto running = evaluation("n", "b", 0, verdict::passed, "{}");
  running.status = "running";
  running.v.reset();
  evaluations.push_back(running); // not judged yet: never stale
  const auto rows = score::summarize_evaluations(evaluations, 3, "new");
  EXPECT_EQ(summary_of(rows, "m", "").stale_guard, 2);
  EXPECT_EQ(summary_of(rows, "n", "").stale_guard, 0);
  EXPECT_EQ(summary_of(score::summarize_evaluations(evaluations, 3), "m", "").stale_guard, 0); // no current version given
}

// ---- what the leaderboard ranks by -------------------------------------------------------------

TEST(ranking, names_the_baseline_and_the_one_method) {
  const auto r = score::describe_ranking(
      "cuda", {{"candidate", "", "cuda_event", "held_events", 6}, {"baseline", "eager", "cuda_event", "held_events", 6}});
  EXPECT_EQ(r.baseline, "eager");
  EXPECT_EQ(r.clock, "device");
  ASSERT_EQ(r.methods.size(), 1u);
  EXPECT_EQ(r.methods[0], (std::pair<std::string, std::int64_t>{"held_events", 12}));
  EXPECT_EQ(r.sentence,
            "speedup over eager PyTorch (the reference in a separate process): median device time "
            "(held events) per shape on cuda, geometric mean over shapes");
}

TEST(ranking, counts_a_fallback_and_timings_from_before_methods_were_kept) {
  const auto r = score::describe_ranking("cuda",
                                         {{"candidate", "", "cuda_event", "held_events", 9},
                                          {"baseline", "eager", "cuda_event", "events", 2},
                                          {"candidate", "", "cuda_event", "", 1}});
  ASSERT_EQ(r.methods.size(), 2u);
  EXPECT_EQ(r.methods[1], (std::pair<std::string, std::int64_t>{"events", 3}));
  EXPECT_NE(r.sentence.find("device time (held events: 9 of 12 timings; events: 3)"), std::string::npos) << r.sentence;
}

TEST(ranking, host_clock_on_cpu_and_a_campaign_without_timings) {
  const auto cpu = score::describe_ranking("cpu", {{"candidate", "", "host", "steady_clock", 4}});
  EXPECT_EQ(cpu.clock, "host");
  EXPECT_NE(cpu.sentence.find("median host time (steady clock) per shape on cpu"), std::string::npos) << cpu.sentence;
  const auto none = score::describe_ranking("cuda", {});
  EXPECT_EQ(none.baseline, "eager");
  EXPECT_TRUE(none.methods.empty());
  EXPECT_NE(none.sentence.find("median device time per shape on cuda"), std::string::npos) << none.sentence;
  EXPECT_NE(none.sentence.find("no timings stored yet"), std::string::npos) << none.sentence;
}
