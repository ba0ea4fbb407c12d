#pragma once
/// The CUPTI probe's evidence file (docs/probe.md) read back by the judge: the guard's probe facts
/// (guard/probe_rules.hpp) and a summary for the evaluation's details.
#include "arbiter/catalog/problem.hpp"
#include "arbiter/guard/probe_rules.hpp"
#include "arbiter/judge/judge.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace arbiter::judge::detail {

/// The guard's facts from a parsed probe.json: windows grouped by shape (window "group" = shape
/// index), the problem's rules, each shape's timing record on the channel for the cross-checks
/// (the clocks, one sample window per sample), and the reference's probe.json (ref_doc, discarded
/// when none) for whether its timed calls run kernels.
guard::probe_evidence probe_facts(const nlohmann::json& doc, const std::vector<std::string>& shape_names,
                                  const runner_events& events, const catalog::rules& rule,
                                  const nlohmann::json& ref_doc = nlohmann::json(nlohmann::json::value_t::discarded));

/// A probe.json parsed, or a discarded value where the file is missing or not a version 1 file.
nlohmann::json read_probe(const std::filesystem::path& file);

/// The device time of a shape's timed samples as CUPTI saw it (docs/measurement.md, "Device
/// time"): per "sample" window the span from its first kernel, copy or memset start to its last
/// end (0 for a window without device work), the median taken inside the timer's step
/// (score::stepped_median); nullopt where the shape has no sample windows. The windows of the
/// samples the runtime left out of its own stats (`dropped`, the record's dropped_idx: the
/// throttled ones) are left out here too, unless that lowers the median by more than
/// k_max_dropped_shift: the list comes from the candidate's process, so it may choose at most
/// that much (then all windows count, `dropped_ignored`).
inline constexpr double k_max_dropped_shift = 0.01;
struct span_stats {
  double median_ms = 0, p10_ms = 0, p90_ms = 0, mean_ms = 0;
  std::size_t samples = 0;
  bool dropped_ignored = false;
};
std::optional<span_stats> sample_spans(const nlohmann::json& doc, std::size_t shape_idx,
                                       const std::vector<std::int64_t>& dropped = {});

/// details["probe"]: totals, graphs, modules, threads, and per shape and window label the windows'
/// medians (kernels, launches, span, busy) and the streams they used, plus the timing cross-check.
nlohmann::json probe_summary(const nlohmann::json& doc, const std::vector<std::string>& shape_names,
                             const guard::probe_evidence& facts);

/// The candidate's evidence as the judge trusts it: doc is discarded unless the file is there, is a
/// version 1 file and carries this run's signature (docs/probe.md, "Signed evidence").
struct candidate_evidence {
  nlohmann::json doc = nlohmann::json(nlohmann::json::value_t::discarded);
  std::string problem; ///< why doc is discarded: "no probe.json", "…unsigned…", "…does not match…"
  bool forged = false; ///< a file is there that the probe did not sign with this run's key
};

/// The candidate's eval_dir/outputs/probe.json, read once per judgement, when run.probe is
/// "enabled" (doc discarded, problem "" otherwise): parsed, then checked against its .mac under
/// run.probe_key.
candidate_evidence candidate_probe(const candidate_run& run, const std::filesystem::path& eval_dir);

/// From candidate_probe's result when run.probe is "enabled": fills evidence and details["probe"]
/// (the status string itself when the probe was unavailable; nothing off cuda). The reference's
/// probe.json in ref_dir, where there is one, tells whether its timed calls run kernels.
void attach_probe(const judge_context& ctx, const catalog::problem& problem, const candidate_run& run,
                  const candidate_evidence& probe, const std::filesystem::path& ref_dir, guard::probe_evidence& evidence,
                  nlohmann::json& details);

} // namespace arbiter::judge::detail
