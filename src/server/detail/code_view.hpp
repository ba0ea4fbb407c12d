#pragma once
/// Source shown on the problem page: syntax highlighting by a small tokenizer (Python, CUDA/C++)
/// and a line diff between two solutions, both rendered on the server as HTML.
#include <string>
#include <string_view>
#include <vector>

namespace arbiter::server::detail {

/// HTML (escaped) of `text` with <span class="t-k|t-s|t-c|t-n|t-p|t-b"> around keywords, strings,
/// comments, numbers, preprocessor lines and builtins. `language`: "python", "cuda", "cpp";
/// anything else is escaped plain text.
std::string highlight(std::string_view text, std::string_view language);

enum class diff_op : char { same = ' ', removed = '-', added = '+' };
struct diff_line {
  diff_op op;
  std::string text;
};
/// A minimal line diff (longest common subsequence) from `before` to `after`.
std::vector<diff_line> diff_lines(std::string_view before, std::string_view after);
/// The diff as an HTML <pre>, with a one-line summary of lines added and removed. Files over
/// 4000 lines are not diffed; the summary says so.
std::string diff_html(std::string_view before, std::string_view after);

} // namespace arbiter::server::detail
