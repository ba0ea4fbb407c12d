#include "arbiter/report/leaderboard.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

using namespace arbiter;
using report::format;

namespace {

report::leaderboard_header header() {
  return {"kernelbench-l1", "nightly", "cuda (NVIDIA H200)", "speedup over eager PyTorch, device time (median)"};
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
  alpha.verdict_counts = {{"passed", 2}, {"incorrect", 1}, {"rejected", 1}};

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
      "rank  model          attempted  passed  pass@1   mean  median  geomean  score  rejected  verdicts\n"
      "   1  alpha                  4       2   50.0%  3.00×   3.00×    2.83×  4.500         2  incorrect 1, rejected 1\n"
      "   2  beta, \"large\"          1       0    0.0%      —       —        —  0.000         0  compile_error 1\n";
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
  "rows": [
    {
      "rank": 1,
      "model": "alpha",
      "problems": 4,
      "attempted": 4,
      "passed": 2,
      "pass_at_1": 0.5,
      "mean_speedup": 3.0,
      "median_speedup": 3.0,
      "geomean_speedup": 2.8284271247461903,
      "kernelarena_score": 4.5,
      "rejected": 2,
      "verdicts": {
        "passed": 2,
        "incorrect": 1,
        "rejected": 1
      }
    },
    {
      "rank": 2,
      "model": "beta, \"large\"",
      "problems": 4,
      "attempted": 1,
      "passed": 0,
      "pass_at_1": 0.0,
      "mean_speedup": null,
      "median_speedup": null,
      "geomean_speedup": null,
      "kernelarena_score": 0.0,
      "rejected": 0,
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
      "rank,model,problems,attempted,passed,pass_at_1,mean_speedup,median_speedup,geomean_speedup,"
      "kernelarena_score,rejected,verdicts\r\n"
      "1,alpha,4,4,2,0.5,3,3,2.8284271247461903,4.5,2,\"incorrect 1, rejected 1\"\r\n"
      "2,\"beta, \"\"large\"\"\",4,1,0,0,,,,0,0,compile_error 1\r\n";
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
      "| rank | model | attempted | passed | pass@1 | mean | median | geomean | score | rejected | verdicts |\n"
      "| ---: | :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :--- |\n"
      "| 1 | alpha\\|beta | 4 | 2 | 50.0% | 3.00× | 3.00× | 2.83× | 4.500 | 2 | incorrect 1, rejected 1 |\n"
      "| 2 | beta, \"large\" | 1 | 0 | 0.0% | — | — | — | 0.000 | 0 | compile_error 1 |\n";
  EXPECT_EQ(render(format::markdown, input), expected);
}
