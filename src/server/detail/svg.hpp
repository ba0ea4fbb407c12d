#pragma once
/// Plots drawn on the server as inline SVG: readable without JavaScript, copied as they are into
/// a static site. Each returns a complete <svg> element; an empty input draws a "no data" note.
#include <string>
#include <vector>

namespace arbiter::server::detail {

struct bar {
  std::string label;
  double value = 0;
  std::string href; ///< optional link on the label
};
/// Horizontal bars, one per entry, scaled to the largest value; `unit` follows each value.
std::string bar_chart(const std::string& title, const std::vector<bar>& bars, const std::string& unit);

/// Histogram of speedups on a log2 axis (bins of half a doubling), with a line at 1×.
std::string speedup_histogram(const std::string& title, const std::vector<double>& speedups);

struct point {
  std::string label;
  double x = 0, y = 0;
};
/// Log-log scatter, each point labelled; points with a non-positive coordinate are left out.
std::string scatter_loglog(const std::string& title, const std::string& x_label, const std::string& y_label,
                           const std::vector<point>& points);

struct whisker {
  std::string label;
  double low = 0, mid = 0, high = 0; ///< p10, median, p90
  bool baseline = false;
};
/// One row per entry: a line from low to high with a dot at mid, on a shared log axis.
std::string whisker_chart(const std::string& title, const std::string& unit, const std::vector<whisker>& rows);

} // namespace arbiter::server::detail
