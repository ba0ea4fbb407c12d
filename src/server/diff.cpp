// A line diff by longest common subsequence: kernels are short, so O(n·m) is fine and exact.
#include "detail/code_view.hpp"
#include "detail/html.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace arbiter::server::detail {

namespace {

constexpr std::size_t k_max_lines = 4000;

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

} // namespace

std::vector<diff_line> diff_lines(std::string_view before, std::string_view after) {
  const auto a = split_lines(before), b = split_lines(after);
  // lcs[i][j]: length of the common subsequence of a[i..] and b[j..].
  std::vector<std::vector<std::uint32_t>> lcs(a.size() + 1, std::vector<std::uint32_t>(b.size() + 1, 0));
  for (std::size_t i = a.size(); i-- > 0;)
    for (std::size_t j = b.size(); j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<diff_line> out;
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && a[i] == b[j]) out.push_back({diff_op::same, std::string(a[i++])}), ++j;
    // Removals before additions, as diff -u prints them.
    else if (i < a.size() && (j == b.size() || lcs[i + 1][j] >= lcs[i][j + 1]))
      out.push_back({diff_op::removed, std::string(a[i++])});
    else out.push_back({diff_op::added, std::string(b[j++])});
  }
  return out;
}

std::string diff_html(std::string_view before, std::string_view after) {
  if (std::count(before.begin(), before.end(), '\n') > static_cast<long>(k_max_lines) ||
      std::count(after.begin(), after.end(), '\n') > static_cast<long>(k_max_lines))
    return "<p class=\"note\">too long to diff (over 4000 lines)</p>";
  std::size_t added = 0, removed = 0;
  std::string body;
  for (const diff_line& line : diff_lines(before, after)) {
    const char* cls = line.op == diff_op::added ? "d-add" : line.op == diff_op::removed ? "d-del" : "d-same";
    added += line.op == diff_op::added;
    removed += line.op == diff_op::removed;
    body += fmt::format("<span class=\"{}\">{} {}</span>\n", cls, static_cast<char>(line.op), escape(line.text));
  }
  return fmt::format("<p class=\"note\">{} lines added, {} removed</p><pre class=\"diff\">{}</pre>", added, removed, body);
}

} // namespace arbiter::server::detail
