// Syntax highlighting, line diffs, roofline expressions, escaping and plots of the web pages.
#include "detail/code_view.hpp"
#include "detail/html.hpp"
#include "detail/roofline.hpp"
#include "detail/svg.hpp"

#include <gtest/gtest.h>

using namespace arbiter;
using namespace arbiter::server::detail;

TEST(highlight, marks_python_keywords_strings_comments_and_numbers) {
  const std::string html = highlight("def f(x):  # doubles\n    return x * 2 + len('a<b')\n", "python");
  EXPECT_NE(html.find("<span class=\"t-k\">def</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"t-c\"># doubles</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"t-n\">2</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"t-s\">&#39;a&lt;b&#39;</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"t-b\">len</span>"), std::string::npos);
}

TEST(highlight, marks_cuda_preprocessor_qualifiers_and_block_comments) {
  const std::string html =
      highlight("#include <cuda.h>\n/* a\n b */ __global__ void k(float* x) { x[threadIdx.x] = 0; }", "cuda");
  EXPECT_NE(html.find("<span class=\"t-p\">#include &lt;cuda.h&gt;</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"t-c\">/* a\n b */</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"t-k\">__global__</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"t-b\">threadIdx</span>"), std::string::npos);
}

TEST(highlight, escapes_unknown_languages_without_markup) { EXPECT_EQ(highlight("<script>", "text"), "&lt;script&gt;"); }

TEST(diff, keeps_common_lines_and_marks_changes) {
  const auto lines = diff_lines("a\nb\nc\n", "a\nx\nc\nd\n");
  std::string ops;
  for (const auto& line : lines) ops += static_cast<char>(line.op) + line.text + ";";
  EXPECT_EQ(ops, " a;-b;+x; c;+d;");
}

TEST(diff, html_counts_added_and_removed_lines) {
  const std::string html = diff_html("one\ntwo\n", "one\nthree\n");
  EXPECT_NE(html.find("1 lines added, 1 removed"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"d-del\">- two</span>"), std::string::npos);
}

TEST(roofline, evaluates_expressions_over_shape_keys) {
  const server::json shape = {{"rows", 4}, {"cols", 8}};
  EXPECT_DOUBLE_EQ(evaluate_expression("5 * rows * cols", shape), 160);
  EXPECT_DOUBLE_EQ(evaluate_expression("2 ** 3 ** 2", shape), 512); // right-associative
  EXPECT_DOUBLE_EQ(evaluate_expression("(rows + cols) / -2", shape), -6);
  EXPECT_THROW(evaluate_expression("rows * depth", shape), config_error);
  EXPECT_THROW(evaluate_expression("rows +", shape), config_error);
}

TEST(roofline, work_of_a_named_shape_and_fraction_of_peak) {
  const server::json spec = server::json::parse(R"({"shapes":[{"name":"s","n":1000}],"roofline":{"flops":"2*n","bytes":"8*n"}})");
  const auto w = work_of(spec, "s");
  ASSERT_TRUE(w);
  EXPECT_DOUBLE_EQ(w->flops, 2000);
  EXPECT_FALSE(work_of(spec, "missing"));
  EXPECT_FALSE(peaks_of(server::json::object(), "float32"));
  const auto p = peaks_of(server::json::parse(R"({"peaks":{"flops_per_s":{"float32":1e6},"bytes_per_s":1e6}})"), "float32");
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(fraction_of_peak(*w, 0.01, *p), 0.8); // bytes bound: 8000 B / 0.01 s / 1e6 B/s
}

TEST(html, escapes_text_and_encodes_path_segments) {
  EXPECT_EQ(escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
  EXPECT_EQ(url_segment("l1.soft max/x"), "l1.soft%20max%2Fx");
  links static_links{"../../", "/index.html", false};
  EXPECT_EQ(static_links.to("hardware"), "../../hardware/index.html");
  EXPECT_EQ(static_links.to(""), "../../index.html");
  EXPECT_EQ(links{}.to("campaign/3"), "/campaign/3");
}

TEST(svg, plots_escape_labels_and_say_when_empty) {
  EXPECT_NE(bar_chart("t", {}, "").find("no data yet"), std::string::npos);
  const std::string bars = bar_chart("score", {{"<m>", 2.0, "/x"}}, "×");
  EXPECT_NE(bars.find("&lt;m&gt;"), std::string::npos);
  EXPECT_NE(bars.find("<svg"), std::string::npos);
  EXPECT_NE(speedup_histogram("h", {0.5, 1.0, 2.0, 2.1}).find("<rect"), std::string::npos);
  EXPECT_NE(scatter_loglog("r", "x", "y", {{"a", 1, 10}, {"b", -1, 1}}).find("<circle"), std::string::npos);
}
