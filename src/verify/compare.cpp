#include "arbiter/verify/compare.hpp"
#include "arbiter/verify/bundle_cache.hpp"

#include "arbiter/common/error.hpp"
#include "detail/chunks.hpp"
#include "detail/decode.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <future>

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

/// What a stretch of elements contributed: counts, largest errors and its worst element.
struct tally {
  std::int64_t numel = 0;
  std::int64_t mismatches = 0;
  std::int64_t nonfinite = 0;
  double max_abs_err = 0;
  double max_rel_err = 0;
  std::int64_t worst_idx = -1; ///< the largest excess over the tolerance; the first on a tie
  double worst_excess = -1;

  void note_mismatch(std::size_t element_idx, double excess) {
    ++mismatches;
    if (worst_idx < 0 || excess > worst_excess) {
      worst_excess = excess;
      worst_idx = static_cast<std::int64_t>(element_idx);
    }
  }

  // Chunks merge in index order, so a tie keeps the earlier element as one pass would.
  void merge(const tally& later) {
    numel += later.numel;
    nonfinite += later.nonfinite;
    max_abs_err = std::max(max_abs_err, later.max_abs_err);
    max_rel_err = std::max(max_rel_err, later.max_rel_err);
    const std::int64_t before = mismatches;
    mismatches += later.mismatches;
    if (later.worst_idx >= 0 && (before == 0 || later.worst_excess > worst_excess)) {
      worst_excess = later.worst_excess;
      worst_idx = later.worst_idx;
    }
  }
};

// allclose for one element; excess is how far outside the tolerance it lies.
bool outside_tolerance(double e, double a, const catalog::tolerance& tol, tally& out, double& excess) {
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

template <typename Decode>
tally compare_range(const Decode& decode, const value& expected, const value& actual, const catalog::tolerance& tol,
                    std::size_t begin, std::size_t end) {
  tally out;
  out.numel = static_cast<std::int64_t>(end - begin);
  const bool bitwise = tol.mode == catalog::tolerance_mode::bitwise;
  for (std::size_t element_idx = begin; element_idx < end; ++element_idx) {
    const unsigned char* e_ptr = expected.bytes.data() + element_idx * decode.size;
    const unsigned char* a_ptr = actual.bytes.data() + element_idx * decode.size;
    const double e = decode(e_ptr);
    const double a = decode(a_ptr);
    double excess = 0;
    bool bad = false;
    if (bitwise) {
      if (std::isfinite(e) && !std::isfinite(a)) ++out.nonfinite;
      bad = std::memcmp(e_ptr, a_ptr, decode.size) != 0;
    } else {
      bad = outside_tolerance(e, a, tol, out, excess);
    }
    if (bad) out.note_mismatch(element_idx, excess);
  }
  return out;
}

// Every element, in chunks on the machine's cores.
tally compare_elements(const value& expected, const value& actual, const catalog::tolerance& tol) {
  const auto parts = detail::with_decoder(expected.dtype, [&](const auto& decode) {
    return detail::map_chunks<tally>(expected.numel(), [&](std::size_t begin, std::size_t end) {
      return compare_range(decode, expected, actual, tol, begin, end);
    });
  });
  tally whole;
  for (const auto& part : parts) whole.merge(part);
  return whole;
}

std::string tolerance_text(const catalog::tolerance& tol) {
  if (tol.mode == catalog::tolerance_mode::bitwise) return "bitwise equality";
  if (tol.mismatch_fraction > 0)
    return fmt::format("atol={:g} rtol={:g} (up to a {:g} share of elements allowed)", tol.atol, tol.rtol, tol.mismatch_fraction);
  return fmt::format("atol={:g} rtol={:g}", tol.atol, tol.rtol);
}

// Mismatches the tolerance lets pass: a share of all elements, never a non-finite one.
bool within_allowance(const tally& whole, const catalog::tolerance& tol) {
  const auto allowed = static_cast<std::int64_t>(tol.mismatch_fraction * static_cast<double>(whole.numel));
  return whole.mismatches <= allowed && (whole.mismatches == 0 || whole.nonfinite == 0);
}

void copy_counts(const tally& whole, check& out) {
  out.numel = whole.numel;
  out.mismatches = whole.mismatches;
  out.nonfinite = whole.nonfinite;
  out.max_abs_err = whole.max_abs_err;
  out.max_rel_err = whole.max_rel_err;
}

} // namespace

check compare_values(const std::vector<value>& expected, const std::vector<value>& actual, const catalog::tolerance& tol) {
  check out;
  if (expected.size() != actual.size()) {
    out.reason = fmt::format("returned {} value(s); expected {}", actual.size(), expected.size());
    return out;
  }
  tally whole;
  for (std::size_t output_idx = 0; output_idx < expected.size(); ++output_idx) {
    const value& e = expected[output_idx];
    const value& a = actual[output_idx];
    if (auto mismatch = structural_mismatch(e, a, output_idx); !mismatch.empty()) {
      copy_counts(whole, out);
      out.reason = mismatch;
      return out;
    }
    const tally t = compare_elements(e, a, tol);
    whole.merge(t);
    if (t.mismatches > 0 && out.reason.empty()) {
      const auto w = static_cast<std::size_t>(t.worst_idx);
      out.reason =
          fmt::format("output {}: {} of {} elements outside {} ({} non-finite); worst at index {}: got {:g}, expected {:g}",
                      output_idx, t.mismatches, e.numel(), tolerance_text(tol), t.nonfinite, t.worst_idx, a.at(w), e.at(w));
    }
  }
  copy_counts(whole, out);
  out.ok = within_allowance(whole, tol);
  if (out.ok) out.reason.clear();
  return out;
}

check compare_files(const std::filesystem::path& expected, const std::filesystem::path& actual, const catalog::tolerance& tol,
                    bundle_cache& cache) {
  // The two files are read side by side: a large case's outputs are gigabytes.
  auto want = std::async(std::launch::async, [&] { return cache.read(expected); });
  std::shared_ptr<const bundle> got;
  try {
    got = cache.read(actual);
  } catch (const io_error& e) {
    want.get(); // a missing expected file is still ours to report: this rethrows it
    check out;
    out.reason = std::string("no readable output: ") + e.what();
    return out;
  }
  return compare_values(*want.get(), *got, tol);
}

check compare_files(const std::filesystem::path& expected, const std::filesystem::path& actual, const catalog::tolerance& tol) {
  bundle_cache uncached(0);
  return compare_files(expected, actual, tol, uncached);
}

} // namespace arbiter::verify
