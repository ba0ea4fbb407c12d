#pragma once
/// How a text value is written into a CSV field or a Markdown table cell: one rule for the
/// leaderboard's renderings and the campaign exports alike.
#include <string>
#include <string_view>

namespace arbiter::report {

/// RFC 4180: a field holding a comma, quote, CR or LF is quoted, its quotes doubled.
std::string csv_field(std::string_view text);

/// A Markdown table cell: `|` escaped, line breaks turned into spaces (a cell is one line).
std::string markdown_cell(std::string_view text);

} // namespace arbiter::report
