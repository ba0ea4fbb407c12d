#include "arbiter/report/leaderboard.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

using namespace arbiter;
using report::format;

namespace {

report::leaderboard_header header() {
  return {"kernelbench-l1",
          "nightly",
          "cuda (NVIDIA H200)",
          "speedup over eager PyTorch, device time (median)",
          {{"held_events", 10}, {"events", 2}},
          "0123456789abcdef"};
}

std::vector<score::model_summary> rows() {
  score::model_summary alpha;
  alpha.model = "alpha";
  alpha.problems = 4;
  alpha.attempted = 4;
  alpha.passed = 2;
  alpha.rejected = 2;
  alpha.pass_at_1 = 0.5;
  alpha.mean_speedup = 3.0;
  alpha.median_speedup = 3.0;
  alpha.geomean_speedup = std::sqrt(8.0);
  alpha.kernelarena_score = 4.5;
  alpha.fast_p = {0.5, 0.5, 0.5, 0.5, 0.25}; // 2 of 4 passed, at 2.0x and at 4.5x
  alpha.verdict_counts = {{"passed", 2}, {"incorrect", 1}, {"rejected", 1}};
  alpha.harness = "arbiter-basic";
  alpha.per_solved = {48210.0, 1500.0, 0.25, 312.4};

  score::model_summary beta;
  beta.model = "beta, \"large\"";
  beta.problems = 4;
  beta.attempted = 1;
  beta.verdict_counts = {{"compile_error", 1}};
  return {alpha, beta};
}

std::string render(format f, const std::vector<score::model_summary>& input = rows()) {
  std::ostringstream out;
  report::render_leaderboard(out, header(), input, f);
  return out.str();
}

} // namespace

TEST(leaderboard, table_is_aligned_with_header_lines) {
  const std::string expected =
      "suite:     kernelbench-l1\n"
      "campaign:  nightly\n"
      "device:    cuda (NVIDIA H200)\n"
      "ranked by: speedup over eager PyTorch, device time (median)\n"
      "\n"
      "rank  model                  attempted  passed  pass@1   mean  median  geomean  score  tokens/solved  cache/solved"
      "  cost/solved  agent time/solved  rejected  verdicts\n"
      "   1  alpha · arbiter-basic          4       2   50.0%  3.00×   3.00×    2.83×  4.500          48.2k          1500"
      "       $0.250            5.2 min         2  incorrect 1, rejected 1\n"
      "   2  beta, \"large\"                  1       0    0.0%      —       —        —  0.000              —             —"
      "            —                  —         0  compile_error 1\n";
  EXPECT_EQ(render(format::table), expected);
}

TEST(leaderboard, table_says_when_there_are_no_rows) {
  const std::string text = render(format::table, {});
  EXPECT_NE(text.find("rank  model  attempted"), std::string::npos) << text;
  EXPECT_NE(text.find("(no finished evaluations)\n"), std::string::npos) << text;
}

TEST(leaderboard, json_has_header_fields_numbers_and_nulls) {
  const std::string expected = R"json({
  "suite": "kernelbench-l1",
  "campaign": "nightly",
  "device": "cuda (NVIDIA H200)",
  "ranked_by": "speedup over eager PyTorch, device time (median)",
  "guard_version": "0123456789abcdef",
  "timing_methods": {
    "held_events": 10,
    "events": 2
  },
  "rows": [
    {
      "rank": 1,
      "model": "alpha",
      "harness": "arbiter-basic",
      "problems": 4,
      "attempted": 4,
      "passed": 2,
      "pass_at_1": 0.5,
      "mean_speedup": 3.0,
      "median_speedup": 3.0,
      "geomean_speedup": 2.8284271247461903,
      "kernelarena_score": 4.5,
      "fast_p": {
        "0": 0.5,
        "0.5": 0.5,
        "1": 0.5,
        "1.5": 0.5,
        "2": 0.25
      },
      "tokens_per_solved": 48210.0,
      "cache_tokens_per_solved": 1500.0,
      "cost_per_solved_usd": 0.25,
      "wall_s_per_solved": 312.4,
      "rejected": 2,
      "stale_guard": 0,
      "verdicts": {
        "passed": 2,
        "incorrect": 1,
        "rejected": 1
      }
    },
    {
      "rank": 2,
      "model": "beta, \"large\"",
      "harness": "",
      "problems": 4,
      "attempted": 1,
      "passed": 0,
      "pass_at_1": 0.0,
      "mean_speedup": null,
      "median_speedup": null,
      "geomean_speedup": null,
      "kernelarena_score": 0.0,
      "fast_p": {
        "0": 0.0,
        "0.5": 0.0,
        "1": 0.0,
        "1.5": 0.0,
        "2": 0.0
      },
      "tokens_per_solved": null,
      "cache_tokens_per_solved": null,
      "cost_per_solved_usd": null,
      "wall_s_per_solved": null,
      "rejected": 0,
      "stale_guard": 0,
      "verdicts": {
        "compile_error": 1
      }
    }
  ]
}
)json";
  EXPECT_EQ(render(format::json), expected);
}

TEST(leaderboard, csv_quotes_commas_and_quotes) {
  const std::string expected =
      "rank,model,harness,problems,attempted,passed,pass_at_1,mean_speedup,median_speedup,geomean_speedup,"
      "kernelarena_score,fast_0,fast_0.5,fast_1,fast_1.5,fast_2,tokens_per_solved,cache_tokens_per_solved,"
      "cost_per_solved_usd,wall_s_per_solved,rejected,stale_guard,verdicts\r\n"
      "1,alpha,arbiter-basic,4,4,2,0.5,3,3,2.8284271247461903,4.5,0.5,0.5,0.5,0.5,0.25,48210,1500,0.25,312.4,2,0,"
      "\"incorrect 1, rejected 1\"\r\n"
      "2,\"beta, \"\"large\"\"\",,4,1,0,0,,,,0,0,0,0,0,0,,,,,0,0,compile_error 1\r\n";
  EXPECT_EQ(render(format::csv), expected);
}

TEST(leaderboard, markdown_table_escapes_pipes) {
  auto input = rows();
  input[0].model = "alpha|beta";
  const std::string expected =
      "- suite: kernelbench-l1\n"
      "- campaign: nightly\n"
      "- device: cuda (NVIDIA H200)\n"
      "- ranked by: speedup over eager PyTorch, device time (median)\n"
      "\n"
      "| rank | model | attempted | passed | pass@1 | mean | median | geomean | score | tokens/solved | cache/solved "
      "| cost/solved | agent time/solved | rejected | verdicts |\n"
      "| ---: | :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :--- |\n"
      "| 1 | alpha\\|beta · arbiter-basic | 4 | 2 | 50.0% | 3.00× | 3.00× | 2.83× | 4.500 | 48.2k | 1500 | $0.250 "
      "| 5.2 min | 2 | incorrect 1, rejected 1 |\n"
      "| 2 | beta, \"large\" | 1 | 0 | 0.0% | — | — | — | 0.000 | — | — | — | — | 0 | compile_error 1 |\n";
  EXPECT_EQ(render(format::markdown, input), expected);
}

TEST(leaderboard, spend_cells_round_for_people) {
  auto input = rows();
  input[0].per_solved = {1.25e6, 812.0, std::nullopt, 9000.0};
  const std::string text = render(format::table, input);
  for (const char* cell : {"1.25M", "812", "2.5 h"}) EXPECT_NE(text.find(cell), std::string::npos) << cell << "\n" << text;
  input[0].per_solved.wall_s = 42.0;
  EXPECT_NE(render(format::table, input).find("42.0 s"), std::string::npos);
}

TEST(leaderboard, rows_judged_under_another_guard_are_marked_in_every_format) {
  auto input = rows();
  input[0].stale_guard = 3;
  for (const format f : {format::table, format::markdown}) {
    const std::string text = render(f, input);
    EXPECT_NE(text.find("alpha · arbiter-basic (stale guard: 3)"), std::string::npos) << text;
    EXPECT_EQ(text.find("beta, \"large\" (stale"), std::string::npos) << text;
    EXPECT_NE(text.find("other than 0123456789abcdef; `arbiter rejudge`"), std::string::npos) << text;
  }
  EXPECT_NE(render(format::json, input).find("\"stale_guard\": 3,"), std::string::npos);
  EXPECT_NE(render(format::csv, input).find(",2,3,\"incorrect 1"), std::string::npos);
  EXPECT_EQ(render(format::table).find("stale guard"), std::string::npos); // no note where nothing is stale
}
