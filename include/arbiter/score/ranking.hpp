#pragma once
/// What a leaderboard ranks by, said from the timings it ranks on (docs/metrics.md). No I/O.
#include "arbiter/store/records.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace arbiter::score {

struct ranking {
  std::string baseline; ///< the baselines timed ("eager"), joined by " and "
  std::string clock;    ///< "device" on cuda, "host" otherwise
  /// Timing method → number of timings (candidate and baseline), most first. A timing stored
  /// before methods were recorded counts as "events" (cuda_event clock) or "steady_clock" (host).
  std::vector<std::pair<std::string, std::int64_t>> methods;
  /// "speedup over eager PyTorch (the reference in a separate process): median device time (held
  /// events) per shape on cuda, geometric mean over shapes"
  std::string sentence;
};

/// Describes the ranking of a campaign on `device` whose passed evaluations were timed as `timings`
/// says (store::store::timing_methods); with no timings, the sentence says so.
ranking describe_ranking(const std::string& device, const std::vector<store::timing_method_count>& timings);

} // namespace arbiter::score
