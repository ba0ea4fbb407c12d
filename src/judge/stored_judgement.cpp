#include "arbiter/judge/judge.hpp"

#include "arbiter/guard/version.hpp"

namespace arbiter::judge {

store::evaluation_result stored_judgement(judgement j) {
  store::evaluation_result r;
  r.result = j.result;
  r.speedup = j.result.v == verdict::passed ? j.speedup : std::nullopt;
  r.details_json = j.details.dump();
  r.measurements = std::move(j.measurements);
  for (const auto& f : j.findings)
    r.findings.push_back({f.pattern, std::string(guard::to_string(f.level)), f.evidence, f.source});
  r.guard_version = guard::guard_version();
  return r;
}

} // namespace arbiter::judge
