#pragma once
/// HTML building blocks shared by every page: escaping, the page shell, links that work both on
/// the live server and in a static copy, and the formatting of numbers and verdicts.
#include "arbiter/server/views.hpp"

#include <string>
#include <string_view>

namespace arbiter::server::detail {

/// Escapes & < > " ' for text and attribute values.
std::string escape(std::string_view text);
/// Percent-encodes one path segment (a model or problem name) for a URL.
std::string url_segment(std::string_view text);

/// How pages link to each other: "/campaign/3" on the server, "../../campaign/3/index.html" in a
/// static copy, where `root` climbs back from the page's own folder.
struct links {
  std::string root = "/";
  std::string suffix;
  bool live = true; ///< the server: live progress and query parameters work
  /// The href of a page given its path without a leading slash ("" is the index).
  std::string to(std::string_view path) const;
};

/// A complete HTML document with the navigation bar.
std::string page(const links& l, std::string_view title, std::string_view body);
/// <a href=...>text</a> with `text` escaped.
std::string anchor(const links& l, std::string_view path, std::string_view text);

std::string format_speedup(const json& value);              ///< "1.23×" or "—"
std::string format_percent(const json& value);              ///< "45.0%" or "—"
std::string format_number(const json& value, int decimals); ///< fixed decimals or "—"
std::string format_count(double value);                     ///< 12.3k, 4.5M: for tokens
/// A coloured label for a verdict (null: "running").
std::string verdict_badge(const json& verdict);
/// A table cell with a sort key for the client-side sorter: <td data-sort="key">text</td>.
std::string sort_cell(const json& key, std::string_view html_text);

} // namespace arbiter::server::detail
