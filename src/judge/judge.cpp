#include "arbiter/judge/judge.hpp"
#include "arbiter/common/timing_kind.hpp"

#include "arbiter/guard/process_rules.hpp"
#include "arbiter/common/json_field.hpp"
#include "arbiter/guard/static_rules.hpp"
#include "arbiter/score/metrics.hpp"
#include "arbiter/verify/bundle_cache.hpp"
#include "detail/guard_evidence.hpp"
#include "detail/outside_evidence.hpp"
#include "detail/probe_evidence.hpp"
#include "detail/timing_record.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace arbiter::judge::detail {

namespace fs = std::filesystem;

namespace {

std::string case_where(const judge_context& ctx, const nlohmann::json& record) {
  const auto shape_idx = record.value("shape_idx", -1);
  std::string where;
  if (shape_idx >= 0 && shape_idx < static_cast<int>(ctx.shapes.size()))
    where = " (shape " + ctx.shapes[static_cast<std::size_t>(shape_idx)].name;
  if (record.contains("seed_idx")) where += ", input set " + std::to_string(record.value("seed_idx", 0));
  return where.empty() ? where : where + ")";
}

// The process and the runner's own account: anything but a clean "done" decides the verdict.
std::optional<outcome> process_outcome(const judge_context& ctx, const candidate_run& run) {
  const auto& p = run.process;
  if (p.end == sandbox::process_end::failed_to_start) return outcome{verdict::crashed, "the runner could not start: " + p.error};
  // A cap of the sandbox reached (the work folder, memory, processes): the excess is gone and the
  // run was not the solution's own; whatever else it reported, it ends here.
  if (!p.limit_exceeded.empty()) return outcome{verdict::runtime_error, "exceeded a sandbox limit: " + p.limit_exceeded};
  if (p.end == sandbox::process_end::timed_out)
    return outcome{verdict::timeout,
                   sandbox::describe(p) + (run.events.last_event.empty() ? "" : " after event '" + run.events.last_event + "'")};
  if (const auto& e = run.events.error) {
    const std::string phase = string_or(*e, "phase", "case");
    const verdict v = phase == "load" ? verdict::compile_error : verdict::runtime_error;
    const std::string what = phase == "load" ? "import failed" : phase + " failed" + case_where(ctx, *e);
    return outcome{v, what + ": " + error_line(*e)};
  }
  if (!run.events.done || p.end != sandbox::process_end::exited || p.exit_code != 0) {
    const std::string last =
        run.events.last_event.empty() ? "before the runner started" : "after event '" + run.events.last_event + "'";
    return outcome{verdict::runtime_error, sandbox::describe(p) + " " + last};
  }
  return std::nullopt;
}

std::optional<outcome> check_cases(const judge_context& ctx, const catalog::problem& problem, const candidate_run& run,
                                   const fs::path& ref_dir, const fs::path& eval_dir, std::vector<case_comparison>& cases,
                                   verify::bundle_cache& bundles) {
  for (const auto& record : run.events.cases)
    if (record.value("inputs_mutated", false))
      return outcome{verdict::incorrect, "modified its inputs" + case_where(ctx, record)};
  std::optional<outcome> first_failure;
  for (std::size_t shape_idx = 0; shape_idx < ctx.shapes.size(); ++shape_idx) {
    for (int seed_idx = 0; seed_idx < ctx.num_seeds; ++seed_idx) {
      const fs::path rel = fs::path(std::to_string(shape_idx)) / std::to_string(seed_idx) / "outputs.arbb";
      const auto c = verify::compare_files(ref_dir / "expected" / rel, eval_dir / "outputs" / rel, problem.tol, bundles);
      cases.push_back({ctx.shapes[shape_idx].name, seed_idx, c.ok, c.reason, c.numel, c.mismatches, c.nonfinite, c.max_abs_err,
                       c.max_rel_err});
      if (!c.ok && !first_failure)
        first_failure = outcome{verdict::incorrect,
                                fmt::format("shape {}, input set {}: {}", ctx.shapes[shape_idx].name, seed_idx, c.reason)};
    }
  }
  return first_failure;
}

// A shape's two timing records as read: the reference's file, the candidate's channel record.
struct timing_pair {
  runtime::timing_record baseline, candidate;
};

void use_spans(store::measurement_record& m, const span_stats& s) {
  m.clock = timing_kind::clock_cupti;
  m.method = timing_kind::method_cupti_span;
  m.median_ms = s.median_ms;
  m.p10_ms = s.p10_ms;
  m.p90_ms = s.p90_ms;
  m.mean_ms = s.mean_ms;
}

// A side's device time from its spans, unless its two clocks disagree (guard::compare_clocks,
// either way): then the larger of the two, so that a witness that saw less never lowers the time;
// the disagreement is noted (details.clocks_disagree) beside the guard's T4.
void use_device_time(store::measurement_record& m, const span_stats& s, const runtime::timing_record& record, const char* role,
                     judgement& j) {
  const double rel_noise = std::isfinite(m.rel_noise) ? m.rel_noise : 0.0;
  const auto agreement = guard::compare_clocks(s.median_ms, m.median_ms, rel_noise, timer_held(record));
  if (agreement != guard::clock_agreement::agree) j.clocks_disagree.push_back({m.shape, role, m.median_ms, s.median_ms});
  if (agreement == guard::clock_agreement::timer_long) return; // the timer's is the larger: kept
  use_spans(m, s);
}

// Device time is the probe's CUPTI span per sample where both the reference and the candidate ran
// with the probe, else both keep their event times: one method per shape on both sides of a speedup.
// Each side's spans leave out the samples its runtime left out of its own stats (dropped_idx).
void prefer_probe_spans(const nlohmann::json& ref_probe, const nlohmann::json& probe, std::size_t shape_idx,
                        const timing_pair& records, store::measurement_record& baseline, store::measurement_record& candidate,
                        judgement& j) {
  const auto b = sample_spans(ref_probe, shape_idx, dropped_samples(records.baseline));
  const auto c = sample_spans(probe, shape_idx, dropped_samples(records.candidate));
  if (!b || !c || b->median_ms <= 0) return;
  use_device_time(baseline, *b, records.baseline, "baseline", j);
  use_device_time(candidate, *c, records.candidate, "candidate", j);
  const auto note = [&](const span_stats& s, const char* role) { // a drop list the spans do not bear out
    if (s.dropped_ignored) j.drops_ignored.push_back({baseline.shape, role});
  };
  note(*b, "baseline");
  note(*c, "candidate");
}

// Each candidate row's speedup over its shape's baseline row, and their geomean when every shape has one.
void compute_speedups(const judge_context& ctx, judgement& j) {
  std::vector<double> speedups;
  for (auto& candidate : j.measurements) {
    if (candidate.role != "candidate" || candidate.median_ms <= 0) continue;
    const auto baseline = std::find_if(j.measurements.begin(), j.measurements.end(),
                                       [&](const auto& m) { return m.role == "baseline" && m.shape == candidate.shape; });
    if (baseline == j.measurements.end()) continue;
    candidate.speedup = baseline->median_ms / candidate.median_ms;
    speedups.push_back(*candidate.speedup);
  }
  j.speedup = speedups.size() == ctx.shapes.size() && !speedups.empty() ? std::optional(score::geomean(speedups)) : std::nullopt;
}

std::string passed_reason(const judge_context& ctx, const judgement& j) {
  return j.speedup ? fmt::format("all {} cases within tolerance; {:.2f}× over eager (geomean of {} shapes)",
                                 ctx.shapes.size() * static_cast<std::size_t>(ctx.num_seeds), *j.speedup, ctx.shapes.size())
                   : "all cases within tolerance; timings missing";
}

// The candidate's times come from the records the runtime handed over on the channel, never from
// its timing/ folder, which the candidate can write (a file that differs is a guard finding).
void attach_timings(const judge_context& ctx, const fs::path& ref_dir, const candidate_run& run, const nlohmann::json& probe,
                    judgement& j) {
  const auto ref_probe = read_probe(ref_dir / "probe.json");
  for (std::size_t shape_idx = 0; shape_idx < ctx.shapes.size(); ++shape_idx) {
    const auto baseline_record = read_timing_file(ref_dir / "timing" / (std::to_string(shape_idx) + ".json"));
    const auto candidate_record = channel_timing(run.events, shape_idx);
    if (!baseline_record || !candidate_record) continue;
    const timing_pair records{*baseline_record, *candidate_record};
    auto baseline = measurement_of(records.baseline);
    auto candidate = measurement_of(records.candidate);
    baseline.shape = candidate.shape = ctx.shapes[shape_idx].name;
    prefer_probe_spans(ref_probe, probe, shape_idx, records, baseline, candidate, j);
    baseline.role = "baseline";
    baseline.baseline = "eager";
    candidate.role = "candidate";
    j.measurements.push_back(baseline);
    j.measurements.push_back(candidate);
  }
  compute_speedups(ctx, j);
}

// On the CPU a score counts only as far as something outside the process confirms it: a shape
// whose outside batch cost more CPU per call than its record claims beyond honest noise
// (guard::outside_confirmed_ms) is timed by that batch; the record's samples are scaled alike, so
// the row keeps its spread. Where the batch cost more than the CPU rule's ratio allows, the guard
// rejects as well (T4); below the tolerance, a forged record gains at most
// guard::k_outside_score_tolerance. The replaced times are listed in details.outside_scored.
void confirm_outside(const judge_context& ctx, const std::vector<guard::outside_check>& outside, judgement& j) {
  bool changed = false;
  for (const auto& check : outside) {
    const auto confirmed_ms = guard::outside_confirmed_ms(check);
    const auto row = std::find_if(j.measurements.begin(), j.measurements.end(),
                                  [&](const auto& m) { return m.role == "candidate" && m.shape == check.shape; });
    if (!confirmed_ms || row == j.measurements.end() || row->median_ms <= 0) continue;
    const double factor = *confirmed_ms / row->median_ms;
    j.outside_scored.push_back({check.shape, row->median_ms, *confirmed_ms, check.calls, check.slack_ms});
    row->median_ms = *confirmed_ms;
    row->p10_ms *= factor;
    row->p90_ms *= factor;
    row->mean_ms *= factor;
    row->method = timing_kind::method_outside_cpu;
    changed = true;
  }
  if (!changed) return;
  compute_speedups(ctx, j);
  if (j.result.v == verdict::passed) j.result.reason = passed_reason(ctx, j);
}

} // namespace

namespace {

outcome base_outcome(const judge_context& ctx, const catalog::problem& problem, const candidate_run& run, const fs::path& ref_dir,
                     const fs::path& eval_dir, const nlohmann::json& probe, judgement& j, verify::bundle_cache& bundles) {
  if (auto o = process_outcome(ctx, run)) return *o;
  if (auto o = check_cases(ctx, problem, run, ref_dir, eval_dir, j.cases.emplace(), bundles)) return *o;
  attach_timings(ctx, ref_dir, run, probe, j);
  return {verdict::passed, passed_reason(ctx, j)};
}

// The guard (docs/guard.md): static facts and run evidence become findings, which may turn the
// verdict into `rejected`; the failing case or process outcome stays in the details.
void apply_guard(const judge_context& ctx, const catalog::problem& problem, const candidate_run& run, const fs::path& ref_dir,
                 const fs::path& eval_dir, const candidate_evidence& probe, judgement& j, verify::bundle_cache& bundles) {
  case_passes passed;
  if (j.result.v == verdict::passed || j.result.v == verdict::incorrect)
    for (const auto& c : j.cases.value_or(std::vector<case_comparison>{})) passed.push_back(c.ok);
  if (ctx.static_rules) j.findings = guard::static_findings(run.facts, problem.rule);
  else j.details["static_rules"] = "off";
  if (auto survivors = guard::survivor_finding(run.process.survivors)) j.findings.push_back(std::move(*survivors));
  auto evidence = collect_evidence(ctx, problem, run, ref_dir, eval_dir, passed, bundles);
  evidence.work = work_checks(ctx, run.events, read_events(ref_dir / "events.jsonl"), j.measurements);
  evidence.clocks = clock_spans(ctx, run.events);
  outside_evidence(evidence, ctx, problem, run, ref_dir, eval_dir, j.measurements, j.result.v == verdict::passed, bundles,
                   j.details);
  confirm_outside(ctx, evidence.outside, j); // the CPU witness only: device cpu
  attach_probe(ctx, problem, run, probe, ref_dir, evidence.probe, j.details);
  for (auto& f : guard::dynamic_findings(evidence)) j.findings.push_back(std::move(f));
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : evidence.checks)
    checks.push_back({{"kind", c.kind}, {"where", c.where}, {"ok", c.ok}, {"reason", c.reason}});
  j.details["guard_checks"] = checks;
  j.details["languages"] = run.facts.value("languages", nlohmann::json::array());
  j.result = guard::decide(j.result, j.findings);
}

} // namespace

} // namespace arbiter::judge::detail

namespace arbiter::judge {

judgement judge(const judge_input& input) {
  using namespace detail;
  const judge_context& ctx = input.context;
  const catalog::problem& problem = input.problem;
  const candidate_run& run = input.run;
  const std::filesystem::path &ref_dir = input.ref_dir, &eval_dir = input.eval_dir;
  judgement j;
  j.details["runner"] = run.events.start;
  j.details["weights"] = run.events.weights;
  j.details["process"] = {{"description", sandbox::describe(run.process)},
                          {"wall_s", run.process.wall_s},
                          {"output_bytes", run.process.output_bytes},
                          {"truncated", run.process.truncated},
                          {"survivors", run.process.survivors}};
  if (run.events.error) j.details["error"] = *run.events.error;
  const candidate_evidence probe = candidate_probe(run, eval_dir);
  // Every bundle of the judgement is read once: a case's expected outputs serve the case, its
  // re-runs, the timed captures, the poison scan and the float64 check.
  verify::bundle_cache bundles(verify::default_cache_budget());
  try {
    j.result = base_outcome(ctx, problem, run, ref_dir, eval_dir, probe.doc, j, bundles);
    apply_guard(ctx, problem, run, ref_dir, eval_dir, probe, j, bundles);
  } catch (const nlohmann::json::exception& e) {
    // A record of the process's (an event, a capture index, a timing record) whose member holds
    // another type than the runner writes: the channel was forged. Fail closed, never `crashed`,
    // which would hide every finding.
    j.findings = {{"H3", guard::severity::reject,
                   std::string("the result channel holds a record the judge cannot read: ") + e.what(), "dynamic"}};
    j.result = guard::decide({verdict::runtime_error, "unreadable record"}, j.findings);
  }
  const auto reads = bundles.stats();
  j.details["judge_reads"] = {{"files", reads.reads}, {"reused", reads.reused}, {"bytes", reads.bytes_read}};
  return j;
}

} // namespace arbiter::judge
