// A text value in a CSV field and in a Markdown table cell (the leaderboard and the exports).
#include "arbiter/report/escape.hpp"

#include <gtest/gtest.h>

using namespace arbiter::report;

TEST(escape, csv_quotes_only_what_needs_it_and_doubles_quotes) {
  EXPECT_EQ(csv_field("gpt-4.1"), "gpt-4.1");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
}

TEST(escape, a_markdown_cell_is_one_line_whose_pipes_do_not_split_it) {
  EXPECT_EQ(markdown_cell("a|b"), "a\\|b");
  EXPECT_EQ(markdown_cell("shape 4k: wrong\r\nat index 3"), "shape 4k: wrong  at index 3");
  EXPECT_EQ(markdown_cell("plain"), "plain");
}
