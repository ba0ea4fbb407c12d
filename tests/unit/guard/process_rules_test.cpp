// Rules over how the candidate's processes ended: survivors of the runner (H6).
#include "arbiter/guard/process_rules.hpp"

#include <gtest/gtest.h>

using namespace arbiter::guard;

TEST(process_rules, no_survivor_no_finding) { EXPECT_FALSE(survivor_finding({}).has_value()); }

TEST(process_rules, survivors_reject_with_their_count_and_command_lines) {
  auto const found = survivor_finding({"python3 -m arbiter_runner candidate job.json", "sleep 60"});
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->pattern, "H6");
  EXPECT_EQ(found->level, severity::reject);
  EXPECT_EQ(found->source, "dynamic");
  EXPECT_EQ(found->evidence, "processes outlived the runner: 2 (python3 -m arbiter_runner candidate job.json; sleep 60)");
}

TEST(process_rules, many_survivors_show_the_first_command_lines_and_the_count) {
  auto const found = survivor_finding({"a", "b", "c", "d", "e"});
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->evidence, "processes outlived the runner: 5 (a; b; c; ...)");
}
