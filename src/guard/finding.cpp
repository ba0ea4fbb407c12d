#include "arbiter/guard/finding.hpp"

#include <algorithm>
#include <array>

namespace arbiter::guard {

namespace {

constexpr std::array<std::string_view, 27> k_catalog{"T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "S1",
                                                     "S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9", "B1",
                                                     "B2", "B3", "H1", "H2", "H3", "H4", "H5", "H6", "H7"};

std::size_t catalog_rank(std::string_view id) {
  const auto it = std::find(k_catalog.begin(), k_catalog.end(), id);
  return static_cast<std::size_t>(it - k_catalog.begin());
}

bool decides(const outcome& base, const finding& f) {
  if (base.v == verdict::crashed || base.v == verdict::skipped) return false;
  if (f.level == severity::reject) return true;
  return f.level == severity::flag && base.v == verdict::passed;
}

} // namespace

std::string_view to_string(severity s) {
  switch (s) {
  case severity::info:
    return "info";
  case severity::flag:
    return "flag";
  case severity::reject:
    return "reject";
  }
  return "info";
}

std::optional<severity> severity_from_string(std::string_view name) {
  for (const severity s : {severity::info, severity::flag, severity::reject})
    if (to_string(s) == name) return s;
  return std::nullopt;
}

bool is_catalog_pattern(std::string_view id) { return catalog_rank(id) < k_catalog.size(); }

std::vector<std::string> deciding_patterns(const outcome& base, const std::vector<finding>& findings) {
  std::vector<std::string> ids;
  for (const auto& f : findings)
    if (decides(base, f) && std::find(ids.begin(), ids.end(), f.pattern) == ids.end()) ids.push_back(f.pattern);
  std::sort(ids.begin(), ids.end(), [](const auto& a, const auto& b) { return catalog_rank(a) < catalog_rank(b); });
  return ids;
}

outcome decide(const outcome& base, const std::vector<finding>& findings) {
  const auto ids = deciding_patterns(base, findings);
  if (ids.empty()) return base;
  std::string reason = "reward hack or rule violation (";
  for (std::size_t idx = 0; idx < ids.size(); ++idx) reason += (idx ? ", " : "") + ids[idx];
  const auto first = std::find_if(findings.begin(), findings.end(), [&](const finding& f) { return decides(base, f); });
  reason += "): " + first->evidence;
  if (base.v != verdict::passed) reason += "; without the guard: " + std::string(arbiter::to_string(base.v));
  return {verdict::rejected, reason};
}

} // namespace arbiter::guard
