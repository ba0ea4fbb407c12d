#pragma once
/// Roofline arithmetic: a problem's [roofline] expressions over its shape keys, and the peaks a
/// calibration stored with the hardware (docs/design.md §5 Metrics, fraction of peak).
#include "arbiter/server/views.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace arbiter::server::detail {

/// Evaluates numbers, shape keys, + - * / ** and parentheses with the keys of `shape` (a JSON
/// object of numbers). Throws config_error naming the expression and what was wrong.
double evaluate_expression(std::string_view expression, const json& shape);

/// FLOPs and bytes one call moves for one shape.
struct work {
  double flops = 0;
  double bytes = 0;
};
/// The work of the named shape per the problem's spec (problem.toml as JSON); nullopt when the
/// problem has no [roofline], the shape is unknown, or an expression does not evaluate.
std::optional<work> work_of(const json& problem_spec, const std::string& shape_name);

/// Peaks measured on the machine: hardware JSON `peaks.flops_per_s.<dtype>` and `peaks.bytes_per_s`.
struct peaks {
  double flops_per_s = 0;
  double bytes_per_s = 0;
};
/// nullopt when the hardware has no calibrated peaks for this dtype.
std::optional<peaks> peaks_of(const json& hardware, const std::string& dtype);
/// max(flops/t ÷ peak flops, bytes/t ÷ peak bandwidth).
double fraction_of_peak(const work& w, double seconds, const peaks& p);

} // namespace arbiter::server::detail
