#include "arbiter/verify/compare.hpp"

#include "arbiter/common/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstring>

namespace arbiter::verify {

namespace {

const char* kind_name(int kind) {
  static constexpr const char* k_names[] = {"tensor", "int", "float", "bool", "None"};
  return kind >= 0 && kind < 5 ? k_names[kind] : "unknown";
}

// Structure first: a wrong dtype or shape is reported as such, not as element mismatches.
std::string structural_mismatch(const value& expected, const value& actual, std::size_t output_idx) {
  if (expected.kind != actual.kind)
    return fmt::format("output {}: a {}; expected a {}", output_idx, kind_name(actual.kind), kind_name(expected.kind));
  if (expected.dtype != actual.dtype)
    return fmt::format("output {}: dtype {}; expected {}", output_idx, dtype_name(actual.dtype), dtype_name(expected.dtype));
  if (expected.shape != actual.shape)
    return fmt::format("output {}: shape [{}]; expected [{}]", output_idx, fmt::join(actual.shape, ", "),
                       fmt::join(expected.shape, ", "));
  return "";
}

bool same_nonfinite(double e, double a) {
  if (std::isnan(e)) return std::isnan(a);
  return a == e; // infinities of the same sign
}

bool element_bad(const value& expected, const value& actual, std::size_t element_idx, const catalog::tolerance& tol,
                 check& out, double& excess) {
  const double e = expected.data[element_idx];
  const double a = actual.data[element_idx];
  excess = 0;
  if (tol.mode == catalog::tolerance_mode::bitwise) {
    const std::size_t size = expected.bytes.size() / expected.data.size();
    if (std::isfinite(e) && !std::isfinite(a)) ++out.nonfinite;
    return std::memcmp(expected.bytes.data() + element_idx * size, actual.bytes.data() + element_idx * size, size) != 0;
  }
  if (!std::isfinite(e)) return !same_nonfinite(e, a);
  if (!std::isfinite(a)) {
    ++out.nonfinite;
    return true;
  }
  const double diff = std::fabs(a - e);
  out.max_abs_err = std::max(out.max_abs_err, diff);
  if (e != 0) out.max_rel_err = std::max(out.max_rel_err, diff / std::fabs(e));
  excess = diff - (tol.atol + tol.rtol * std::fabs(e));
  return excess > 0;
}

void compare_elements(const value& expected, const value& actual, const catalog::tolerance& tol, check& out,
                      std::int64_t& worst_idx) {
  double worst_excess = -1;
  for (std::size_t element_idx = 0; element_idx < expected.data.size(); ++element_idx) {
    ++out.numel;
    double excess = 0;
    if (!element_bad(expected, actual, element_idx, tol, out, excess)) continue;
    ++out.mismatches;
    if (worst_idx < 0 || excess > worst_excess) {
      worst_excess = excess;
      worst_idx = static_cast<std::int64_t>(element_idx);
    }
  }
}

std::string tolerance_text(const catalog::tolerance& tol) {
  if (tol.mode == catalog::tolerance_mode::bitwise) return "bitwise equality";
  return fmt::format("atol={:g} rtol={:g}", tol.atol, tol.rtol);
}

} // namespace

check compare_values(const std::vector<value>& expected, const std::vector<value>& actual, const catalog::tolerance& tol) {
  check out;
  if (expected.size() != actual.size()) {
    out.reason = fmt::format("returned {} value(s); expected {}", actual.size(), expected.size());
    return out;
  }
  for (std::size_t output_idx = 0; output_idx < expected.size(); ++output_idx) {
    const value& e = expected[output_idx];
    const value& a = actual[output_idx];
    if (auto mismatch = structural_mismatch(e, a, output_idx); !mismatch.empty()) {
      out.reason = mismatch;
      return out;
    }
    std::int64_t worst_idx = -1;
    const std::int64_t before = out.mismatches;
    const std::int64_t nonfinite_before = out.nonfinite;
    compare_elements(e, a, tol, out, worst_idx);
    if (out.mismatches > before && out.reason.empty()) {
      const auto w = static_cast<std::size_t>(worst_idx);
      out.reason = fmt::format("output {}: {} of {} elements outside {} ({} non-finite); worst at index {}: got {:g}, expected {:g}",
                               output_idx, out.mismatches - before, e.data.size(), tolerance_text(tol),
                               out.nonfinite - nonfinite_before, worst_idx, a.data[w], e.data[w]);
    }
  }
  out.ok = out.mismatches == 0;
  return out;
}

check compare_files(const std::filesystem::path& expected, const std::filesystem::path& actual, const catalog::tolerance& tol) {
  const std::vector<value> want = read_bundle(expected);
  std::vector<value> got;
  try {
    got = read_bundle(actual);
  } catch (const io_error& e) {
    check out;
    out.reason = std::string("no readable output: ") + e.what();
    return out;
  }
  return compare_values(want, got, tol);
}

} // namespace arbiter::verify
