// Dynamic rules: what the run showed → catalog patterns.
#include "arbiter/guard/dynamic_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace arbiter::guard {

namespace {

finding dynamic(std::string pattern, severity level, std::string evidence) {
  return {std::move(pattern), level, std::move(evidence), "dynamic"};
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t idx = 0; idx < items.size() && idx < 4; ++idx) out += (idx ? "; " : "") + items[idx];
  if (items.size() > 4) out += "; and " + std::to_string(items.size() - 4) + " more";
  return out;
}

/// Which pattern a failed check is evidence of.
std::string pattern_of(const output_check& c) {
  if (c.kind == "mutation") return "S5";
  if (c.kind == "repeat") return "S3";
  if (c.kind == "stress") return "S9";
  if (c.kind == "float64") return "S4";
  if (c.kind == "outside") return "S6";
  return c.matches_other_set ? "T5" : "T7";
}

std::string says(const output_check& c) {
  if (c.kind == "mutation") return "the output did not follow inputs overwritten in place (memoised)";
  if (c.kind == "repeat") return "identical inputs gave a different output on a second call (non-deterministic)";
  if (c.kind == "stress") return "correct at the problem's scale, wrong on scaled stress inputs";
  if (c.kind == "float64") return "error against a float64 reference far above the float32 reference's";
  if (c.kind == "outside") return "correct on the known input sets, wrong on sets handed over at the outside clock's go";
  if (c.matches_other_set) return "a timed call returned another input set's result (work done once, reused)";
  return "a timed call's output differs from the correctness pass (behaves differently when timed)";
}

void check_findings(const run_evidence& e, std::vector<finding>& out) {
  std::map<std::string, bool> reported; // one finding per pattern: the first failing check
  for (const auto& c : e.checks) {
    if (c.ok) continue;
    const std::string pattern = pattern_of(c);
    if (reported[pattern]) continue;
    reported[pattern] = true;
    out.push_back(dynamic(pattern, severity::reject, says(c) + ": " + c.where + ": " + c.reason));
  }
}

// T5 through timing: known inputs served faster than any unseen input can be computed.
void work_findings(const run_evidence& e, std::vector<finding>& out) {
  for (const auto& w : e.work) {
    const double allowed = std::max(k_work_ratio, k_work_ref_factor * w.reference_ratio);
    if (w.fresh_ms < k_work_floor_ms || w.timed_ms * allowed >= w.fresh_ms) continue;
    out.push_back(dynamic("T5", severity::reject,
                          fmt::format("shape {}: timed calls took {:.4g} ms (median) where a call on inputs it had not seen "
                                      "took {:.4g} ms at the fastest ({:.0f}× more): work done before the timed calls or "
                                      "skipped in them",
                                      w.shape, w.timed_ms, w.fresh_ms, w.fresh_ms / std::max(w.timed_ms, 1e-9))));
    return; // one finding says it
  }
}

// T4 in native code: the loop's clock ran at another rate than the kernel's monotonic clock.
void clock_findings(const run_evidence& e, std::vector<finding>& out) {
  for (const auto& c : e.clocks) {
    if (c.kernel_clock_s < k_clock_min_span_s || std::abs(c.sample_clock_s / c.kernel_clock_s - 1.0) <= k_clock_tolerance)
      continue;
    out.push_back(
        dynamic("T4", severity::reject,
                fmt::format("shape {}: the timing loop's clock counted {:.4g} s where the kernel's monotonic clock "
                            "(read by a raw syscall) counted {:.4g} s: the clock ran at {:.3g}× (patched in the process)",
                            c.shape, c.sample_clock_s, c.kernel_clock_s, c.sample_clock_s / c.kernel_clock_s)));
    return;
  }
}

// T4 from outside the process: the record claims a call faster than the orchestrator's own clock
// saw calls on inputs nobody could have prepared for. Names no road: any forged record, patched
// clock or memo that the known sets serve shows here.
void outside_findings(const run_evidence& e, std::vector<finding>& out) {
  for (const auto& o : e.outside) {
    const double allowed_ms = o.claimed_ms * o.allowed_ratio + o.slack_ms;
    if (o.calls <= 0) continue;
    if (o.per_call_ms <= allowed_ms) {
      // Inside the rule's ratio, beyond the score's tolerance: shown, and the score takes the
      // confirmed time (the judge's confirm_outside), so it decides nothing by itself.
      if (const auto confirmed_ms = outside_confirmed_ms(o))
        out.push_back(dynamic("T4", severity::info,
                              fmt::format("shape {}: the record claims {:.4g} ms per call; the kernel's account of the "
                                          "outside batch saw {:.4g} ms per call over {} calls (over {:.1f}× the claim plus "
                                          "{:.3g} ms of slack): the shape is scored by {:.4g} ms",
                                          o.shape, o.claimed_ms, o.per_call_ms, o.calls, k_outside_score_tolerance, o.slack_ms,
                                          *confirmed_ms)));
      continue;
    }
    const char* const witness =
        o.witness == "cpu" ? "the kernel's account of the evaluation's CPU time saw" : "the orchestrator's clock saw";
    out.push_back(dynamic("T4", severity::reject,
                          fmt::format("shape {}: {} {:.4g} ms per call over {} calls on input sets handed over at its "
                                      "go; the timing record claims {:.4g} ms ({:.1f}× less; at most {:.4g} ms per call "
                                      "is honest noise)",
                                      o.shape, witness, o.per_call_ms, o.calls, o.claimed_ms,
                                      o.per_call_ms / std::max(o.claimed_ms, 1e-9), allowed_ms)));
    return;
  }
}

} // namespace

std::optional<double> outside_confirmed_ms(const outside_check& check) {
  if (check.witness != "cpu" || check.calls <= 0 || check.claimed_ms <= 0) return std::nullopt;
  if (check.per_call_ms <= check.claimed_ms * k_outside_score_tolerance + check.slack_ms) return std::nullopt;
  return check.per_call_ms;
}

std::vector<finding> dynamic_findings(const run_evidence& e) {
  std::vector<finding> out;
  if (!e.thread_leaks.empty())
    // The runner's own census, in the candidate's process: alive is not busy, so evidence only.
    out.push_back(
        dynamic("T2", severity::info, "threads alive after the calls (the runner's census): " + joined(e.thread_leaks)));
  if (!e.busy_after_answer.empty())
    out.push_back(dynamic("T2", severity::reject,
                          "work outlives the calls (the kernel's account of its CPU time while the "
                          "runner waited after its answer): " +
                              joined(e.busy_after_answer)));
  if (!e.patched.empty()) {
    const bool harness = e.patched.front().find("arbiter_runner") != std::string::npos;
    out.push_back(dynamic(harness ? "H3" : "T4", severity::reject, "replaced while it ran: " + joined(e.patched)));
  }
  if (!e.output_types.empty())
    out.push_back(
        dynamic("T3", severity::reject, "returns a tensor that is not exactly torch.Tensor: " + joined(e.output_types)));
  if (!e.aliases.empty() && !e.reference_aliases)
    out.push_back(dynamic("S1", severity::reject, "returns storage shared with an input: " + joined(e.aliases)));
  if (e.inputs_mutated && !e.reference_mutates)
    out.push_back(dynamic("S7", severity::reject, "modified its inputs (hashes before and after the call differ)"));
  if (!e.poisoned.empty()) out.push_back(dynamic("S2", severity::reject, "left its output unwritten: " + e.poisoned));
  if (!e.channel.empty()) out.push_back(dynamic("H3", severity::reject, "the result channel was forged: " + joined(e.channel)));
  if (!e.unavailable.empty())
    out.push_back(dynamic("H3", severity::flag, "evidence the judge needs is unavailable: " + joined(e.unavailable)));
  check_findings(e, out);
  work_findings(e, out);
  clock_findings(e, out);
  outside_findings(e, out);
  probe_findings(e.probe, out);
  return out;
}

} // namespace arbiter::guard
