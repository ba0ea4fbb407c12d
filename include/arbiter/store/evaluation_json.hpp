#pragma once
/// One stored evaluation as JSON: the form `arbiter show --json` prints and the web page's
/// evaluation data starts from, so the two never disagree on a field.
#include "arbiter/store/records.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace arbiter::store {

/// The guard's findings, each with its pattern, severity, evidence and source.
nlohmann::ordered_json findings_json(const std::vector<finding_record>& findings);

/// The fields of an evaluation's row that every listing of rows carries (the campaign export, the
/// problem page): model, org, sample, status, verdict (null while it is not done), reason,
/// speedup (null where none), wall_s and solution_path. Each listing adds its own beside them.
nlohmann::json row_json(const evaluation_row& e);

/// Every stored field of the evaluation: what identifies it (its campaign by name), its verdict
/// (null while it is not done), reason, speedup, wall, solution, times, measurements, findings,
/// static facts (null where none were kept), details (an object: {} where none or unreadable),
/// and the guard it was judged under with whether that is `current_guard`.
nlohmann::ordered_json evaluation_json(const evaluation_view& v, const std::string& current_guard);

} // namespace arbiter::store
