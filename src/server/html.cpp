// Escaping, the page shell, links and number formatting.
#include "detail/html.hpp"

#include <fmt/format.h>

#include <cmath>

namespace arbiter::server::detail {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string url_segment(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string links::to(std::string_view path) const {
  if (path.empty()) return live ? root : root + "index.html";
  return root + std::string(path) + suffix;
}

std::string page(const links& l, std::string_view title, std::string_view body) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>{0} · arbiter</title><link rel=\"stylesheet\" href=\"{1}assets/style.css\">"
      "<script defer src=\"{1}assets/app.js\"></script></head>\n<body>"
      "<nav><a class=\"brand\" href=\"{2}\">arbiter</a> <a href=\"{2}\">leaderboards</a> "
      "<a href=\"{3}\">campaigns</a> <a href=\"{4}\">hardware</a></nav>\n<main>\n<h1>{0}</h1>\n{5}\n</main></body></html>\n",
      escape(title), l.root, l.to(""), l.to("campaigns"), l.to("hardware"), body);
}

std::string anchor(const links& l, std::string_view path, std::string_view text) {
  return fmt::format("<a href=\"{}\">{}</a>", escape(l.to(path)), escape(text));
}

std::string format_speedup(const json& value) { return value.is_number() ? fmt::format("{:.2f}×", value.get<double>()) : "—"; }

std::string format_percent(const json& value) {
  return value.is_number() ? fmt::format("{:.1f}%", 100 * value.get<double>()) : "—";
}

std::string format_number(const json& value, int decimals) {
  return value.is_number() ? fmt::format("{:.{}f}", value.get<double>(), decimals) : "—";
}

std::string format_count(double value) {
  if (std::abs(value) >= 1e6) return fmt::format("{:.1f}M", value / 1e6);
  if (std::abs(value) >= 1e3) return fmt::format("{:.1f}k", value / 1e3);
  return fmt::format("{:.0f}", value);
}

std::string verdict_badge(const json& verdict) {
  const std::string name = verdict.is_string() ? verdict.get<std::string>() : "running";
  return fmt::format("<span class=\"verdict v-{0}\">{0}</span>", escape(name));
}

std::string sort_cell(const json& key, std::string_view html_text) {
  std::string sort_key = key.is_number() ? fmt::format("{}", key.get<double>())
      : key.is_string()                  ? key.get<std::string>()
                                         : std::string("-1e300");
  return fmt::format("<td data-sort=\"{}\">{}</td>", escape(sort_key), html_text);
}

} // namespace arbiter::server::detail
