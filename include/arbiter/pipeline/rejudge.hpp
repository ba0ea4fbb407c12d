#pragma once
/// `arbiter rejudge`: a stored campaign's evaluations judged again under this build's guard and the
/// suite's current rules, from what each evaluation's folder kept (run.json, events.jsonl, the
/// outputs and the probe's evidence) and its reference's folder, without running any candidate
/// (docs/guard.md, "Guard version and re-judging").
#include "arbiter/common/verdict.hpp"
#include "arbiter/store/store.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace arbiter::pipeline {

/// One evaluation as the re-judgement left it.
struct rejudged {
  enum class state : std::uint8_t {
    changed,   ///< verdict, reason or findings differ: the new judgement is stored
    confirmed, ///< the same verdict, reason and findings: stored as judged under this guard
    cannot,    ///< its evidence is gone (`missing` says what): left as it was
  };
  std::int64_t evaluation_id = 0;
  std::string problem, model;
  int sample = 0;
  state result = state::cannot;
  outcome before, after; ///< after: changed and confirmed only
  std::string guard_before, guard_after;
  std::string missing; ///< cannot: what is missing, one line
};

struct rejudge_report {
  std::string campaign;
  std::vector<rejudged> evaluations; ///< the campaign's finished evaluations, in its order
};

/// Judges every finished evaluation of the campaign again and stores each new judgement (verdict,
/// reason, findings, details, measurements, speedup and this build's guard version); an evaluation
/// whose folder, run record, events or reference is gone, whose bundles were pruned, or whose
/// problem's shapes changed is reported as `cannot` and left as it was. The suite is read from the
/// folder the campaign was run with. Throws config_error when the campaign's stored config is not
/// JSON; store_error from the store.
rejudge_report rejudge_campaign(store::store& db, const store::campaign_record& campaign);

} // namespace arbiter::pipeline
