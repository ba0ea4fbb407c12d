#pragma once
/// The judge: a stage of its own between running a candidate (src/pipeline) and storing its result
/// (src/store). It takes one judge_input — the problem, the settings the runs were made with, what
/// the candidate's process left (its end, its channel, its facts, the outside clock's record) and
/// the two folders — and returns one judgement: the verdict and its reason, the measurements, every
/// finding of the guard and the details shown for the evaluation. Process end and runner events
/// come first, then the orchestrator's own comparison of every case, then the timings, then the
/// guard (docs/guard.md), which may turn the verdict into `rejected`.
#include "arbiter/catalog/problem.hpp"
#include "arbiter/common/verdict.hpp"
#include "arbiter/guard/finding.hpp"
#include "arbiter/judge/events.hpp"
#include "arbiter/judge/outside_record.hpp"
#include "arbiter/sandbox/process.hpp"
#include "arbiter/store/records.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace arbiter::judge {

/// What one candidate process left for the judge.
struct candidate_run {
  sandbox::process_result process;
  runner_events events;
  /// Static facts of the solution (facts.py); {"unavailable": why} where they could not be had,
  /// which the guard reads as a finding (fail closed).
  nlohmann::json facts = {{"facts", nlohmann::json::array()}};
  nlohmann::json sandbox = nlohmann::json::object(); ///< sandbox_details() of the candidate process
  std::string probe;                                 ///< probe_setup::status: "" (not cuda), "enabled", "unavailable: <why>"
  std::string probe_key;                             ///< the key its evidence must be signed with (hex); "" without the probe
  outside_record outside;                            ///< the orchestrator's clock over the process's batches (outside.json)
};

/// The settings the reference and the candidate ran with that the judgement depends on.
struct judge_context {
  std::string device;                 ///< "cpu" or "cuda"
  std::vector<catalog::shape> shapes; ///< the problem's shapes for the device, in the jobs' order
  int num_seeds = 0;                  ///< input sets per shape
  bool static_rules = true;           ///< false: the guard's static rules are off (recorded in the details)
};

struct judge_input {
  const catalog::problem& problem;
  judge_context context;
  const candidate_run& run;
  std::filesystem::path ref_dir;  ///< the reference's folder: expected outputs, timing, probe, batches
  std::filesystem::path eval_dir; ///< the evaluation's folder: the candidate's outputs and copies
};

/// One case (a shape's input set): the candidate's outputs against the reference's (verify::compare_files).
struct case_comparison {
  std::string shape;
  int input_set = 0;
  bool ok = false;
  std::string reason;
  std::int64_t numel = 0, mismatches = 0, nonfinite = 0;
  double max_abs_err = 0, max_rel_err = 0;
};

/// A side's two clocks that disagreed beyond their tolerance (guard::compare_clocks): the larger was kept.
struct clock_disagreement {
  std::string shape, role;
  double timer_ms = 0, span_ms = 0;
};

/// A side whose drop list (the record's dropped_idx) the probe's spans do not bear out: all its
/// sample windows counted.
struct dropped_ignored {
  std::string shape, role;
};

/// A shape whose candidate time the outside batch's CPU account replaced (guard::outside_confirmed_ms).
struct outside_score {
  std::string shape;
  double record_ms = 0, confirmed_ms = 0;
  int calls = 0;
  double slack_ms = 0;
};

struct judgement {
  outcome result;
  std::optional<double> speedup;
  /// Every case compared, shape-major; none where the process did not finish cleanly.
  std::optional<std::vector<case_comparison>> cases;
  std::vector<store::measurement_record> measurements;
  std::vector<guard::finding> findings; ///< every finding, deciding or not
  std::vector<clock_disagreement> clocks_disagree;
  std::vector<dropped_ignored> drops_ignored;
  std::vector<outside_score> outside_scored;
  /// Summaries shown as they are (the runner, the process, the probe, the outside clock, the guard's
  /// checks, …) and, once judged, the run's own keys a caller adds (k_run_details).
  nlohmann::json details = nlohmann::json::object();
};

judgement judge(const judge_input& input);

/// The judgement's details as stored and shown (`details_json` of an evaluation): `details` with the
/// typed members written in, under the keys "cases", "clocks_disagree", "dropped_ignored" and
/// "outside_scored" (the last three only where non-empty). The one writer of those keys.
nlohmann::json details_json(const judgement& j);

/// A judgement as the store keeps it, the one way from judge() to store::evaluation_result for the
/// campaign and for `arbiter rejudge`: the verdict, its details (dumped), the speedup (a passed
/// evaluation's only), the measurements, the findings as stored rows, and this build's guard
/// version. Leaves the run's own fields (wall time, artifacts, facts) to the caller.
store::evaluation_result stored_judgement(judgement j);

/// Keys of an evaluation's details that the campaign writes beside the judge's, about the run
/// rather than its judgement (the sandbox, the build, the pruned bundles, the wall times): a new
/// judgement of the same run keeps them.
inline constexpr std::array<const char*, 4> k_run_details{"sandbox", "build", "pruned_bundles", "wall"};

} // namespace arbiter::judge
