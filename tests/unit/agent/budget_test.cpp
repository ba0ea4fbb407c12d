#include "arbiter/agent/budget.hpp"

#include <gtest/gtest.h>

using namespace arbiter::agent;

TEST(budget, turns_then_tokens_then_wall) {
  budget b{3, 1000, 60};
  EXPECT_FALSE(budget_exhausted(b, {2, {400, 100, 0, 0}, 10}));
  EXPECT_EQ(budget_exhausted(b, {3, {0, 0, 0, 0}, 0}), stop_reason::max_turns);
  EXPECT_EQ(budget_exhausted(b, {1, {500, 100, 300, 100}, 0}), stop_reason::max_tokens);
  EXPECT_EQ(budget_exhausted(b, {1, {}, 60.5}), stop_reason::max_wall);
}

TEST(budget, zero_means_no_limit) {
  budget b{0, 0, 0};
  EXPECT_FALSE(budget_exhausted(b, {100000, {1 << 30, 0, 0, 0}, 1e9}));
}

TEST(budget, stop_reason_names_round_trip) {
  for (auto r : {stop_reason::final_answer, stop_reason::max_turns, stop_reason::max_tokens, stop_reason::max_wall,
                 stop_reason::model_error})
    EXPECT_EQ(stop_reason_from_string(to_string(r)), r);
  EXPECT_FALSE(stop_reason_from_string("done"));
}

TEST(budget, price_and_cost) {
  const price p = parse_price("in=3,out=15,cache_read=0.3,cache_write=3.75");
  EXPECT_DOUBLE_EQ(cost_usd({1'000'000, 1'000'000, 1'000'000, 1'000'000}, p), 3 + 15 + 0.3 + 3.75);
  EXPECT_DOUBLE_EQ(cost_usd({2000, 0, 0, 0}, parse_price("input=1")), 0.002);
  EXPECT_THROW(parse_price("in=x"), arbiter::config_error);
  EXPECT_THROW(parse_price("tokens=3"), arbiter::config_error);
  EXPECT_THROW(parse_price("in"), arbiter::config_error);
}

TEST(budget, durations) {
  EXPECT_DOUBLE_EQ(parse_duration("90"), 90);
  EXPECT_DOUBLE_EQ(parse_duration("90s"), 90);
  EXPECT_DOUBLE_EQ(parse_duration("30m"), 1800);
  EXPECT_DOUBLE_EQ(parse_duration("1h30m"), 5400);
  EXPECT_DOUBLE_EQ(parse_duration("1.5h"), 5400);
  EXPECT_THROW(parse_duration(""), arbiter::config_error);
  EXPECT_THROW(parse_duration("m"), arbiter::config_error);
  EXPECT_THROW(parse_duration("ten"), arbiter::config_error);
}
