// Inline SVG plots. Sizes are fixed; text is escaped; coordinates are rounded to 0.1 px.
#include "detail/svg.hpp"
#include "detail/html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace arbiter::server::detail {

namespace {

constexpr double k_width = 640;

std::string open_svg(const std::string& title, double height) {
  return fmt::format("<figure class=\"plot\"><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" "
                     "width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{}\"><title>{}</title>",
                     k_width, height, k_width, height, escape(title), escape(title));
}

std::string close_svg(const std::string& title) {
  return fmt::format("</svg><figcaption>{}</figcaption></figure>", escape(title));
}

std::string no_data(const std::string& title) {
  return open_svg(title, 40) + "<text x=\"10\" y=\"25\" class=\"axis\">no data yet</text>" + close_svg(title);
}

/// Maps [lo, hi] in log10 space onto [from, to] pixels.
struct log_axis {
  double lo, hi, from, to;
  double at(double value) const { return from + (std::log10(value) - lo) / (hi - lo) * (to - from); }
};

log_axis axis_for(const std::vector<double>& values, double from, double to) {
  const auto [min_it, max_it] = std::minmax_element(values.begin(), values.end());
  double lo = std::floor(std::log10(*min_it)), hi = std::ceil(std::log10(*max_it));
  if (hi <= lo) hi = lo + 1;
  return {lo, hi, from, to};
}

std::string decade_ticks(const log_axis& axis, bool vertical, double cross_from, double cross_to) {
  std::string out;
  for (double decade = axis.lo; decade <= axis.hi; ++decade) {
    const double pos = axis.from + (decade - axis.lo) / (axis.hi - axis.lo) * (axis.to - axis.from);
    const std::string label = fmt::format("1e{}", decade);
    if (vertical)
      out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" class=\"grid\"/>"
                         "<text x=\"{0:.1f}\" y=\"{3:.1f}\" class=\"axis\" text-anchor=\"middle\">{4}</text>",
                         pos, cross_from, cross_to, cross_to + 14, label);
    else
      out += fmt::format("<line x1=\"{1:.1f}\" y1=\"{0:.1f}\" x2=\"{2:.1f}\" y2=\"{0:.1f}\" class=\"grid\"/>"
                         "<text x=\"{3:.1f}\" y=\"{0:.1f}\" class=\"axis\" text-anchor=\"end\">{4}</text>",
                         pos, cross_from, cross_to, cross_from - 4, label);
  }
  return out;
}

} // namespace

std::string bar_chart(const std::string& title, const std::vector<bar>& bars, const std::string& unit) {
  if (bars.empty()) return no_data(title);
  constexpr double row = 22, label_w = 180, value_w = 80;
  double top = 0;
  for (const auto& b : bars) top = std::max(top, b.value);
  std::string out = open_svg(title, row * static_cast<double>(bars.size()) + 10);
  for (std::size_t idx = 0; idx < bars.size(); ++idx) {
    const bar& b = bars[idx];
    const double y = 5 + row * static_cast<double>(idx);
    const double w = top > 0 ? std::max(0.0, b.value) / top * (k_width - label_w - value_w) : 0;
    const std::string label = fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"label\" text-anchor=\"end\">{}</text>",
                                          label_w - 6, y + 15, escape(b.label));
    out += b.href.empty() ? label : fmt::format("<a href=\"{}\">{}</a>", escape(b.href), label);
    out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" class=\"bar\"/>"
                       "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"value\">{:.3g}{}</text>",
                       label_w, y + 2, w, row - 6, label_w + w + 4, y + 15, b.value, escape(unit));
  }
  return out + close_svg(title);
}

std::string speedup_histogram(const std::string& title, const std::vector<double>& speedups) {
  std::map<int, int> bins; // bin k holds speedups in [2^(k/2), 2^((k+1)/2))
  for (double s : speedups)
    if (s > 0 && std::isfinite(s)) ++bins[static_cast<int>(std::floor(2 * std::log2(s)))];
  if (bins.empty()) return no_data(title);
  constexpr double height = 200, base = 170, left = 40;
  const int first = std::min(bins.begin()->first, -1), last = std::max(bins.rbegin()->first, 0);
  int tallest = 0;
  for (const auto& [bin, count] : bins) tallest = std::max(tallest, count);
  const double bin_w = (k_width - left - 10) / (last - first + 1);
  std::string out = open_svg(title, height);
  for (const auto& [bin, count] : bins) {
    const double h = static_cast<double>(count) / tallest * (base - 20);
    out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" class=\"bar\">"
                       "<title>{:.2f}×–{:.2f}×: {}</title></rect>",
                       left + (bin - first) * bin_w + 1, base - h, bin_w - 2, h, std::exp2(bin / 2.0), std::exp2((bin + 1) / 2.0),
                       count);
  }
  for (int bin = first; bin <= last + 1; bin += 2)
    out += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"axis\" text-anchor=\"middle\">{:g}×</text>",
                       left + (bin - first) * bin_w, base + 16, std::exp2(bin / 2.0));
  const double one = left + (0 - first) * bin_w;
  out += fmt::format("<line x1=\"{0:.1f}\" y1=\"10\" x2=\"{0:.1f}\" y2=\"{1}\" class=\"ref\"/>", one, base);
  out += fmt::format("<text x=\"4\" y=\"20\" class=\"axis\">max {}</text>", tallest);
  return out + close_svg(title);
}

std::string scatter_loglog(const std::string& title, const std::string& x_label, const std::string& y_label,
                           const std::vector<point>& points) {
  std::vector<point> kept;
  std::copy_if(points.begin(), points.end(), std::back_inserter(kept), [](const point& p) { return p.x > 0 && p.y > 0; });
  if (kept.empty()) return no_data(title);
  constexpr double height = 320, left = 60, bottom = 280, top = 10;
  std::vector<double> xs, ys;
  for (const auto& p : kept) xs.push_back(p.x), ys.push_back(p.y);
  const log_axis x = axis_for(xs, left, k_width - 20), y = axis_for(ys, bottom, top);
  std::string out = open_svg(title, height) + decade_ticks(x, true, top, bottom) + decade_ticks(y, false, left, k_width - 20);
  for (const auto& p : kept)
    out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" class=\"dot\"><title>{}: {:.3g}, {:.3g}</title></circle>"
                       "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"label\">{}</text>",
                       x.at(p.x), y.at(p.y), escape(p.label), p.x, p.y, x.at(p.x) + 6, y.at(p.y) - 4, escape(p.label));
  out += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"axis\" text-anchor=\"middle\">{}</text>", (left + k_width) / 2,
                     height - 4, escape(x_label));
  out += fmt::format(
      "<text x=\"12\" y=\"{:.1f}\" class=\"axis\" transform=\"rotate(-90 12 {:.1f})\" text-anchor=\"middle\">{}</text>",
      (top + bottom) / 2, (top + bottom) / 2, escape(y_label));
  return out + close_svg(title);
}

std::string whisker_chart(const std::string& title, const std::string& unit, const std::vector<whisker>& rows) {
  std::vector<double> values;
  for (const auto& r : rows)
    for (double v : {r.low, r.mid, r.high})
      if (v > 0) values.push_back(v);
  if (values.empty()) return no_data(title);
  constexpr double row = 20, left = 220;
  const double height = row * static_cast<double>(rows.size()) + 30;
  const log_axis x = axis_for(values, left, k_width - 20);
  std::string out = open_svg(title, height) + decade_ticks(x, true, 0, height - 20);
  for (std::size_t idx = 0; idx < rows.size(); ++idx) {
    const whisker& r = rows[idx];
    if (!(r.low > 0 && r.mid > 0 && r.high > 0)) continue;
    const double y = 12 + row * static_cast<double>(idx);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"label\" text-anchor=\"end\">{}</text>"
                       "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" class=\"{}\"/>"
                       "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" class=\"{}\"><title>{}: p10 {:.4g}, median {:.4g}, p90 "
                       "{:.4g} {}</title></circle>",
                       left - 6, y + 4, escape(r.label), x.at(r.low), y, x.at(r.high), y, r.baseline ? "whisker base" : "whisker",
                       x.at(r.mid), y, r.baseline ? "dot base" : "dot", escape(r.label), r.low, r.mid, r.high, escape(unit));
  }
  out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"axis\">{}</text>", left, height - 2, escape(unit));
  return out + close_svg(title);
}

} // namespace arbiter::server::detail
