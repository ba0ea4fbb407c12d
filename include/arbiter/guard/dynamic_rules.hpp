#pragma once
/// Rules over what a candidate run showed (docs/guard.md): the orchestrator's extra comparisons
/// (mutation, determinism, stress, float64, captured timed outputs) and the runner's own
/// observations (thread census, harness integrity, output types and aliasing).
#include "arbiter/guard/finding.hpp"
#include "arbiter/guard/probe_rules.hpp"

#include <optional>
#include <string>
#include <vector>

namespace arbiter::guard {

/// One comparison beyond the base cases, made by the orchestrator in C++.
struct output_check {
  std::string kind;  ///< "mutation" | "repeat" | "stress" | "timed" | "float64" | "outside"
  std::string where; ///< "shape 4k, input set 1", "shape 4k, scale 0.001", "shape 4k, timed call 17"
  bool ok = true;
  std::string reason;             ///< why not ok
  bool matches_other_set = false; ///< timed: the output is another input set's expected output
};

/// One shape's work check (T5): the fastest call on inputs the solution could not know in advance
/// (the re-run on a sealed mutation set) against the timed calls, which repeat known input sets.
struct work_check {
  std::string shape;
  double fresh_ms = 0; ///< the fastest sealed-set call's wall time, device synchronised
  double timed_ms = 0; ///< the timed calls' median: the larger of device time and host latency
  /// The reference's own fresh-to-timed ratio (its mutation call against its median); 0 unknown.
  /// On cuda a lone synchronised call of a tiny kernel costs many times its back-to-back median
  /// (launch and synchronisation), for an honest model as for the reference.
  double reference_ratio = 0;
};

/// A timed median this many times below the fresh call's, with the fresh call at least
/// k_work_floor_ms long (below that, launch and synchronisation costs dominate both), is work done
/// before the timed calls or skipped in them.
inline constexpr double k_work_ratio = 8.0;
inline constexpr double k_work_floor_ms = 0.2;
/// The ratio allowed is the larger of k_work_ratio and this times the reference's own ratio.
inline constexpr double k_work_ref_factor = 2.0;

/// One timed shape's clock check (T4): the sampling loop's span on the clock the samples read and
/// on CLOCK_MONOTONIC read through a raw syscall (the timing record's clock_check).
struct clock_span {
  std::string shape;
  double sample_clock_s = 0;
  double kernel_clock_s = 0;
};

/// The two spans of an honest loop differ by the gap between two adjacent reads (microseconds);
/// a relative difference above this over a span of at least k_clock_min_span_s is a patched clock.
inline constexpr double k_clock_tolerance = 0.05;
inline constexpr double k_clock_min_span_s = 0.02;

/// One shape's outside-clock check (T4, docs/guard.md "The outside clock"): the orchestrator's
/// wall over a batch of calls on input sets it handed over at its go, less what such a batch costs
/// besides the calls (the reference's batches that call nothing), per call, against the time the
/// candidate's timing record claims for one call.
struct outside_check {
  std::string shape;
  /// "wall": the orchestrator's steady clock; "cpu": the kernel's account of the CPU time the
  /// process's cgroup used over the same batch (the CPU device only: it does not grow with load).
  std::string witness = "wall";
  int calls = 0;
  double per_call_ms = 0;   ///< (candidate batch wall − overhead) / calls
  double claimed_ms = 0;    ///< the record's time per call (cuda: the larger of device time and host latency)
  double allowed_ratio = 0; ///< per_call_ms may reach claimed_ms × this (+ slack_ms) before it is a finding
  double slack_ms = 0;      ///< per call: the overhead's spread and noise share over calls, and k_outside_floor_ms
};

/// An honest call in a batch costs what a timed sample does, give or take caches, the first call
/// on fresh data and scheduling: the allowed ratio is the larger of this and the reference's own
/// batch-to-record ratio × k_outside_ref_factor (the same harness on a trusted model says how far an
/// honest ratio strays on this machine and shape).
inline constexpr double k_outside_min_ratio = 3.0;
inline constexpr double k_outside_ref_factor = 1.5;
/// Per call, what the wall cannot resolve whatever the batch: a call's share of the batch's
/// mapping faults, its Python call and the thread woken by the channel (honest 0.01 ms calls were
/// seen at 0.15 ms per call in a loaded CI run, when the batch still moved its sets and outputs
/// through files). Calls cheaper than this rest on the work check, the captures and the probe.
inline constexpr double k_outside_floor_ms = 0.25;
/// What the batch does besides its calls slows with the host's load as its calls do: this share of
/// the overhead is allowed as noise too (with the sets and outputs in files, the red-team runs on a
/// 2-core host under a parallel build saw no-call batches of one shape from 12 to 170 ms).
inline constexpr double k_outside_overhead_noise = 0.25;
/// The candidate's own no-call batch counts as its overhead up to this many times the reference's.
inline constexpr double k_outside_own_overhead_cap = 4.0;
/// The CPU witness (device cpu, one granted thread): an honest call's CPU time in the batch stays
/// near its timed wall once the batch carries no file traffic (sets mapped, outputs read from the
/// held process: honest starter and legit-corpus calls at 0.7-1.3x their records on the 2-core host,
/// docs/results/2026-12-07-outside-mapped-held-cpu.md), so the allowed ratio is the larger of this
/// and k_outside_ref_factor × the reference's own CPU-to-record ratio; the overhead's CPU time is
/// steady, so a tenth of it is noise, and below the floor a call's share of the batch's mapping
/// faults and Python call is noise.
inline constexpr double k_outside_cpu_min_ratio = 2.0;
inline constexpr double k_outside_cpu_noise = 0.1;
inline constexpr double k_outside_cpu_floor_ms = 0.1;
/// The candidate's own no-call batch's CPU time counts up to this many times the reference's: the
/// same mapping, clones and declaration (the red-team runs saw honest-looking ones at 0.9 to 1.3x
/// the reference's); a no-call batch that burns CPU on purpose hides at most half the reference's
/// overhead from the calls.
inline constexpr double k_outside_cpu_own_overhead_cap = 1.5;

/// CPU time (ms) the candidate's processes may use in the outside clock's quiet window after an
/// answer (5 ms, while the runner waits for its release and nothing of the harness runs) before it
/// is work outliving the calls: an idle process uses none; a thread busy at return uses the window.
/// Honest processes used at most 0.043 ms of it on the 2-core CPU host and 0.127 ms on an H100 (the
/// legal corpus, docs/results/2026-12-07-threads-outside-h100-cpu.md).
/// A score counts only as far as the outside confirms it (device cpu, the CPU witness): a shape
/// whose batch cost more CPU per call than this times its record claims (plus the check's slack)
/// is timed by the batch instead (outside_confirmed_ms). The candidate's own batch against its own
/// record, not scaled by the reference's ratio: a reference's batch can run at half its record
/// (its weights left in cache between back-to-back calls) where a candidate's runs at its record.
/// Honest records of the starter suite and the legal corpus stayed within it on the 2-core host
/// (docs/results/2026-12-07-outside-score-cpu.md); a record forged by less gains at most this much.
inline constexpr double k_outside_score_tolerance = 1.3;

/// The time per call the outside CPU account confirms for a shape where it is longer than the
/// record's beyond k_outside_score_tolerance and the slack: the batch's CPU per call. nullopt
/// where the record stands, or the witness is not the CPU account.
std::optional<double> outside_confirmed_ms(const outside_check& check);

inline constexpr double k_busy_after_answer_ms = 0.5;

struct run_evidence {
  std::vector<output_check> checks;      ///< the output checks that were made (a failing one is a finding)
  std::vector<std::string> thread_leaks; ///< Python threads alive after load or calls that were not before
  /// Per batch whose processes used CPU after the answer, while the runner waited for its release
  /// (read outside the process: work that outlives the calls, a thread busy at return).
  std::vector<std::string> busy_after_answer;
  std::vector<std::string> patched;      ///< harness or timer objects replaced while the candidate ran
  std::vector<std::string> output_types; ///< outputs whose type is not exactly torch.Tensor
  std::vector<std::string> aliases;      ///< outputs sharing storage with an input
  bool reference_aliases = false;        ///< the reference itself returns (a view of) an input
  bool inputs_mutated = false;
  bool reference_mutates = false;       ///< the reference itself works in place
  std::string poisoned;                 ///< non-empty: an output still holds the allocator poison
  std::vector<std::string> channel;     ///< anomalies of the result channel (events, files)
  std::vector<std::string> unavailable; ///< evidence a rule needs that could not be had (fail closed)
  std::vector<work_check> work;         ///< per timed shape with a sealed-set re-run
  std::vector<clock_span> clocks;       ///< per timed shape whose record carries both spans
  std::vector<outside_check> outside;   ///< per timed shape with an outside-clock batch
  probe_evidence probe;                 ///< the CUPTI probe's account (probe_rules.hpp)
};

/// Findings of a run. Output checks decide only when the base cases passed: a solution that is
/// already wrong is `incorrect`, not a hack.
std::vector<finding> dynamic_findings(const run_evidence& evidence);

} // namespace arbiter::guard
