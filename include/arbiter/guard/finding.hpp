#pragma once
/// A guard finding: one pattern of the threat catalog (docs/design.md §4, ids T1..T8, S1..S9,
/// B1..B3, H1..H7) with a severity and evidence a person can read, and how findings turn a
/// verdict into `rejected`. Findings are data: stored per evaluation, shown by `arbiter show`.
#include "arbiter/common/verdict.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arbiter::guard {

/// info: shown, never decides. flag: rejects a solution that would otherwise have passed; a
/// solution that failed keeps its failure verdict (the attack did not work) and the evidence.
/// reject: rejects whatever the solution's other outcome (crashed and skipped excepted).
enum class severity : std::uint8_t { info, flag, reject };

std::string_view to_string(severity s);
std::optional<severity> severity_from_string(std::string_view name);

struct finding {
  std::string pattern; ///< catalog id, e.g. "T4"
  severity level = severity::reject;
  std::string evidence; ///< one line: what was seen, where
  std::string source;   ///< "static" (facts of the sources), "dynamic" (the run) or "probe" (CUPTI's account)
};

/// True for the 27 ids of the threat catalog (its 27 rows).
bool is_catalog_pattern(std::string_view id);

/// The verdict after the guard: `base` unless a finding decides otherwise (see severity). The
/// reason of a rejection names every deciding pattern id, then the first deciding evidence.
outcome decide(const outcome& base, const std::vector<finding>& findings);

/// Distinct pattern ids of the findings that decided a rejection, in catalog order.
std::vector<std::string> deciding_patterns(const outcome& base, const std::vector<finding>& findings);

} // namespace arbiter::guard
