#pragma once
/// Renders leaderboard rows. Results go to the given stream (stdout in the CLI).
#include "arbiter/score/metrics.hpp"

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace arbiter::report {

enum class format : int { table, json, csv, markdown };

struct leaderboard_header {
  std::string suite;
  std::string campaign;
  std::string device;
  std::string ranked_by; ///< score::ranking::sentence
  /// Timing method → timings (score::ranking::methods); JSON output only.
  std::vector<std::pair<std::string, std::int64_t>> timing_methods;
  /// The guard version a row's stale_guard is counted against (guard::guard_version()); "" = none.
  std::string guard_version;
};

void render_leaderboard(std::ostream& out, const leaderboard_header& header, const std::vector<score::model_summary>& rows,
                        format fmt);

} // namespace arbiter::report
