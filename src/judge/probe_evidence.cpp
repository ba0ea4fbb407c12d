// probe.json → the guard's probe facts and the details' summary. Timed windows are labelled
// "sample" (device-time samples) and "latency" (host-latency calls) by the runtime; "case" marks a
// correctness call, "warmup" an untimed one (src/runtime/timing.cpp, python/arbiter_runner).
#include "detail/probe_evidence.hpp"

#include "arbiter/common/file.hpp"
#include "arbiter/common/json_field.hpp"
#include "arbiter/probe/signature.hpp"
#include "arbiter/score/metrics.hpp"
#include "detail/timing_record.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

namespace arbiter::judge::detail {

namespace fs = std::filesystem;

namespace {

nlohmann::json parse_evidence(const std::string& text) {
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_object() || integer_or<std::int64_t>(doc, "version", 0) != 1)
    return nlohmann::json(nlohmann::json::value_t::discarded);
  return doc;
}

/// "" when the evidence text carries key's signature in its .mac file, else why not.
std::string signature_problem(const fs::path& file, std::string text, const std::string& key) {
  const auto mac = try_read_file(probe::mac_path(file));
  if (!mac) return "probe.json is unsigned (no probe.json.mac): not written by this run's probe";
  if (!text.empty() && text.back() == '\n') text.pop_back(); // the probe signs the JSON, then ends the file
  std::string given = *mac;
  while (!given.empty() && (given.back() == '\n' || given.back() == ' ')) given.pop_back();
  if (given != probe::evidence_mac(key, text))
    return "probe.json's signature does not match this run's key: altered or not written by the probe";
  return "";
}

bool timed(const std::string& label) { return label == "sample" || label == "latency"; }

/// Distinct vendor-library kernel names among the kernels inside the solution's calls (any window:
/// case, warmup, sample, latency), the first guard::k_library_names of them.
std::vector<std::string> library_kernel_names(const nlohmann::json& doc) {
  std::vector<std::string> names;
  const auto kernels = doc.find("kernels");
  if (kernels == doc.end() || !kernels->is_array()) return names;
  for (const auto& k : *kernels) {
    if (!k.is_object() || integer_or<std::int64_t>(k, "window", -1) < 0) continue;
    const std::string name = string_or(k, "name");
    if (!guard::library_kernel(name) || std::find(names.begin(), names.end(), name) != names.end()) continue;
    names.push_back(name);
    if (names.size() == guard::k_library_names) break;
  }
  return names;
}

std::uint64_t number(const nlohmann::json& w, const char* key) {
  const auto it = w.find(key);
  return it != w.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
}

/// The windows of one shape, by label.
std::map<std::string, std::vector<const nlohmann::json*>> windows_of(const nlohmann::json& doc, std::size_t shape_idx) {
  std::map<std::string, std::vector<const nlohmann::json*>> by_label;
  const auto windows = doc.find("windows"); // pointers into doc itself, never into a copy
  if (windows == doc.end() || !windows->is_array()) return by_label;
  for (const auto& w : *windows)
    if (w.is_object() && integer_or<std::int64_t>(w, "group", -1) == static_cast<std::int64_t>(shape_idx))
      by_label[string_or(w, "label")].push_back(&w);
  return by_label;
}

/// The callback API's count of a timed window against its activity records: every kernel launch
/// that returned success leaves one kernel record (a window in which a capture began is left out:
/// a captured launch runs nothing). Windows of a probe that did not count (no api_kernel_launches)
/// are not checked.
void count_unrecorded(const nlohmann::json& w, guard::probe_shape& s) {
  if (!w.contains("api_kernel_launches") || number(w, "captures") > 0) return;
  const std::uint64_t launched = number(w, "api_kernel_launches");
  const std::uint64_t recorded = number(w, "kernels") + number(w, "harness_kernels");
  const std::uint64_t work = number(w, "kernels") + number(w, "copies") + number(w, "memsets");
  if (launched <= recorded && (work > 0 || number(w, "api_transfers") == 0)) return;
  ++s.samples_missing_records;
  s.launches_unrecorded += launched > recorded ? launched - recorded : 0;
  if (recorded + work == 0) ++s.samples_unrecorded;
}

void count_window(const std::string& label, const nlohmann::json& w, guard::probe_shape& s) {
  const std::uint64_t kernels = number(w, "kernels");
  s.max_kernels_per_call = std::max(s.max_kernels_per_call, kernels);
  if (label == "case") {
    ++s.cases;
    if (kernels > 0) ++s.cases_with_kernels;
    return;
  }
  if (!timed(label)) return;
  ++s.samples;
  if (kernels == 0) ++s.samples_without_kernels;
  const std::uint64_t transfers = number(w, "copies") + number(w, "memsets");
  if (kernels == 0 && transfers > 0) ++s.samples_transfer_only;
  count_unrecorded(w, s);
  // Copies and memsets are device work as kernels are: off the harness stream, or outliving the
  // sample, they escape the timer alike.
  if (const auto off = number(w, "off_stream_kernels") + number(w, "off_stream_transfers"); off > 0) {
    ++s.samples_off_stream;
    s.off_stream_work += off;
  }
  if (number(w, "after_end_kernels") + number(w, "after_end_transfers") > 0 &&
      number(w, "after_end_max_ns") > guard::k_escape_slack_ns) {
    ++s.samples_escaping;
    s.escape_max_ns = std::max(s.escape_max_ns, number(w, "after_end_max_ns"));
  }
}

// A step read from fewer distinct durations may be a multiple of the clock's (all of a few
// durations can share a factor by chance: one kernel listed gives its own duration); then the
// step is unknown and medians are plain.
constexpr std::size_t k_step_min_distinct_durations = 16;
// The steps looked for where the durations have no common divisor but keep to one within
// score::k_timer_step_tolerance_ns: below the smallest, every duration is near some multiple.
constexpr std::uint64_t k_step_smallest_ns = 8, k_step_largest_ns = 256;
// Only durations this short read the step: CUPTI's mapping onto the host's clock scales a reading,
// and a long one (a 40 µs hold on the H100 of 2026-12-05) drifts more than the tolerance off it.
constexpr std::uint64_t k_step_longest_duration_ns = 16'384;

bool keeps_to(const std::set<std::uint64_t>& durations, std::uint64_t step) {
  return std::all_of(durations.begin(), durations.end(), [&](std::uint64_t d) { return score::on_step(d, step).has_value(); });
}

/// The step of the clock the evidence's timestamps come from, read from the durations of the
/// kernels it lists one by one, those up to k_step_longest_duration_ns: their greatest common
/// divisor (32 ns on H100 and H200), or where that is 1, the largest step of
/// k_step_smallest_ns..k_step_largest_ns every duration keeps to (score::on_step: CUPTI's mapping
/// of the GPU's timer onto the host's clock moves a reading by a nanosecond), else 1; 0 (unknown)
/// where they hold fewer than k_step_min_distinct_durations distinct durations.
std::uint64_t timer_step_ns(const nlohmann::json& doc) {
  const auto kernels = doc.find("kernels");
  if (kernels == doc.end() || !kernels->is_array()) return 0;
  std::set<std::uint64_t> durations;
  for (const auto& k : *kernels) {
    if (!k.is_object()) continue;
    const std::uint64_t start = number(k, "start_ns"), end = number(k, "end_ns");
    if (end > start && end - start <= k_step_longest_duration_ns) durations.insert(end - start);
  }
  if (durations.size() < k_step_min_distinct_durations) return 0;
  std::uint64_t step = 0;
  for (const std::uint64_t d : durations) step = std::gcd(step, d);
  if (step > 1) return step;
  for (std::uint64_t near = k_step_largest_ns; near >= k_step_smallest_ns; --near)
    if (keeps_to(durations, near)) return near;
  return 1;
}

std::optional<double> median_ms(const std::vector<const nlohmann::json*>& windows, const char* key, std::uint64_t step) {
  std::vector<std::uint64_t> values;
  for (const auto* w : windows)
    if (number(*w, "kernels") > 0) values.push_back(number(*w, key));
  if (values.empty()) return std::nullopt;
  return score::stepped_median(std::move(values), step) / 1e6;
}

// What the runtime reported for the shape, as handed over on the channel (never the timing file,
// which the candidate can rewrite).
void read_reported(const runner_events& events, std::size_t shape_idx, guard::probe_shape& s) {
  const auto raw = channel_record(events, shape_idx);
  const auto record = raw ? runtime::parse_timing_record(*raw) : std::nullopt;
  if (!record) return;
  s.reported_median_ms = record->median_ms;
  if (record->rel_noise && std::isfinite(*record->rel_noise)) s.rel_noise = *record->rel_noise;
  s.host_median_ms = record->host_median_ms;
  s.held = timer_held(*record);
  // One reading per sample, kept or dropped: how many sample windows the probe should hold.
  if (const auto listed = raw->find("sample_sm_mhz"); listed != raw->end() && listed->is_array())
    s.expected_samples = static_cast<std::int64_t>(record->sample_sm_mhz.size());
}

/// The sample windows of a shape against the n samples the runtime timed: indices 0..n-1 once each.
void check_sample_indices(const std::vector<const nlohmann::json*>& samples, guard::probe_shape& s) {
  s.sample_windows = static_cast<int>(samples.size());
  if (!s.expected_samples) return;
  std::vector<bool> seen(static_cast<std::size_t>(std::max<std::int64_t>(*s.expected_samples, 0)), false);
  for (const auto* w : samples) {
    const auto index = integer_or<std::int64_t>(*w, "index", -1);
    if (index < 0 || index >= static_cast<std::int64_t>(seen.size()) || seen[static_cast<std::size_t>(index)])
      ++s.sample_indices_extra;
    else seen[static_cast<std::size_t>(index)] = true;
  }
  s.sample_indices_missing = static_cast<int>(std::count(seen.begin(), seen.end(), false));
}

/// Kernels outside every window whose window before was a timed one of the shape.
void count_outside(const nlohmann::json& doc, std::size_t shape_idx, guard::probe_shape& s) {
  const auto outside = doc.value("outside_windows", nlohmann::json::object());
  const auto after = outside.is_object() ? outside.value("after", nlohmann::json::array()) : nlohmann::json::array();
  for (const auto& gap : after) {
    if (!gap.is_object() || !timed(string_or(gap, "label")) ||
        integer_or<std::int64_t>(gap, "group", -1) != static_cast<std::int64_t>(shape_idx))
      continue;
    s.outside_timed_kernels += number(gap, "kernels");
    s.outside_timed_busy_ns += number(gap, "busy_ns");
  }
}

/// Whether the reference's timed calls of a shape launch kernels (most of its sample windows).
bool runs_kernels(const nlohmann::json& ref_doc, std::size_t shape_idx) {
  if (!ref_doc.is_object()) return false;
  const auto by_label = windows_of(ref_doc, shape_idx);
  const auto it = by_label.find("sample");
  if (it == by_label.end() || it->second.empty()) return false;
  const auto with_kernels =
      std::count_if(it->second.begin(), it->second.end(), [](const auto* w) { return number(*w, "kernels") > 0; });
  return 2 * static_cast<std::size_t>(with_kernels) > it->second.size();
}

guard::probe_witness witness_of(const nlohmann::json& doc) {
  guard::probe_witness w;
  w.windows_dropped = number(doc, "windows_dropped");
  const auto it = doc.find("witness");
  if (it == doc.end() || !it->is_object()) return w;
  w.forged_markers = number(*it, "forged_markers");
  w.refused_claims = number(*it, "refused_claims");
  w.callbacks_disabled = number(*it, "callbacks_disabled");
  for (const auto& note : it->value("notes", nlohmann::json::array()))
    if (note.is_string()) w.notes += (w.notes.empty() ? "" : "; ") + note.get<std::string>();
  return w;
}

nlohmann::json label_summary(const std::vector<const nlohmann::json*>& windows, std::uint64_t step) {
  std::vector<double> kernels, launches;
  std::set<std::uint64_t> streams;
  std::int64_t threads = 0;
  for (const auto* w : windows) {
    kernels.push_back(static_cast<double>(number(*w, "kernels")));
    launches.push_back(static_cast<double>(number(*w, "launches")));
    for (const auto& id : w->value("streams", nlohmann::json::array()))
      if (id.is_number_unsigned()) streams.insert(id.get<std::uint64_t>());
    threads = std::max(threads, integer_or<std::int64_t>(*w, "threads", 0));
  }
  nlohmann::json out{{"windows", windows.size()},
                     {"kernels_median", score::median(kernels)},
                     {"launches_median", score::median(launches)},
                     {"streams", streams},
                     {"threads_max", threads}};
  if (const auto span = median_ms(windows, "span_ns", step)) out["span_median_ms"] = *span;
  if (const auto busy = median_ms(windows, "busy_ns", step)) out["busy_median_ms"] = *busy;
  return out;
}

} // namespace

nlohmann::json read_probe(const fs::path& file) {
  const auto text = try_read_file(file);
  return text ? parse_evidence(*text) : nlohmann::json(nlohmann::json::value_t::discarded);
}

namespace {

span_stats span_stats_of(std::vector<std::uint64_t> spans_ns, std::uint64_t step) {
  const std::vector<double> spans(spans_ns.begin(), spans_ns.end());
  return span_stats{score::stepped_median(std::move(spans_ns), step) / 1e6, score::quantile(spans, 0.1) / 1e6,
                    score::quantile(spans, 0.9) / 1e6, score::mean(spans) / 1e6, spans.size()};
}

} // namespace

std::optional<span_stats> sample_spans(const nlohmann::json& doc, std::size_t shape_idx,
                                       const std::vector<std::int64_t>& dropped) {
  if (!doc.is_object()) return std::nullopt;
  const auto by_label = windows_of(doc, shape_idx);
  const auto it = by_label.find("sample");
  if (it == by_label.end() || it->second.empty()) return std::nullopt;
  std::vector<std::uint64_t> all_ns, kept_ns;
  for (const auto* w : it->second) {
    const std::uint64_t span =
        number(*w, "kernels") + number(*w, "copies") + number(*w, "memsets") > 0 ? number(*w, "span_ns") : 0;
    all_ns.push_back(span);
    if (!std::binary_search(dropped.begin(), dropped.end(), integer_or<std::int64_t>(*w, "index", -1))) kept_ns.push_back(span);
  }
  const std::uint64_t step = timer_step_ns(doc);
  auto all = span_stats_of(std::move(all_ns), step);
  if (kept_ns.empty() || kept_ns.size() == all.samples) return all;
  auto kept = span_stats_of(std::move(kept_ns), step);
  if (kept.median_ms >= all.median_ms * (1 - k_max_dropped_shift)) return kept;
  all.dropped_ignored = true;
  return all;
}

guard::probe_evidence probe_facts(const nlohmann::json& doc, const std::vector<std::string>& shape_names,
                                  const runner_events& events, const catalog::rules& rule, const nlohmann::json& ref_doc) {
  guard::probe_evidence e;
  e.expected = e.present = true;
  e.complete = integer_or<std::int64_t>(doc.value("totals", nlohmann::json::object()), "dropped_records", 0) == 0;
  e.graph_launches = integer_or<std::uint64_t>(doc.value("graphs", nlohmann::json::object()), "launched", 0);
  e.extra_streams = rule.extra_streams;
  e.cuda_graphs = rule.cuda_graphs;
  e.libraries = rule.libraries;
  e.max_launches = rule.max_launches;
  e.library_kernels = library_kernel_names(doc);
  e.witness = witness_of(doc);
  const std::uint64_t step = timer_step_ns(doc);
  for (std::size_t shape_idx = 0; shape_idx < shape_names.size(); ++shape_idx) {
    guard::probe_shape s;
    s.shape = shape_names[shape_idx];
    const auto by_label = windows_of(doc, shape_idx);
    for (const auto& [label, windows] : by_label)
      for (const auto* w : windows) count_window(label, *w, s);
    if (const auto it = by_label.find("sample"); it != by_label.end()) s.span_median_ms = median_ms(it->second, "span_ns", step);
    read_reported(events, shape_idx, s);
    const auto samples = by_label.find("sample");
    check_sample_indices(samples == by_label.end() ? std::vector<const nlohmann::json*>{} : samples->second, s);
    count_outside(doc, shape_idx, s);
    s.reference_runs_kernels = runs_kernels(ref_doc, shape_idx);
    e.shapes.push_back(std::move(s));
  }
  return e;
}

nlohmann::json probe_summary(const nlohmann::json& doc, const std::vector<std::string>& shape_names,
                             const guard::probe_evidence& facts) {
  const std::uint64_t step = timer_step_ns(doc);
  nlohmann::json out{{"status", "enabled"},
                     {"totals", doc.value("totals", nlohmann::json::object())},
                     {"graphs", doc.value("graphs", nlohmann::json::object())},
                     {"contexts", integer_or<std::int64_t>(doc, "contexts", 0)},
                     {"modules_loaded", integer_or<std::int64_t>(doc, "modules_loaded", 0)},
                     {"streams_created", doc.value("streams_created", nlohmann::json::array()).size()},
                     {"threads_max", integer_or<std::int64_t>(doc, "threads_max", 0)},
                     {"outside_windows", doc.value("outside_windows", nlohmann::json::object())},
                     {"errors", doc.value("errors", nlohmann::json::array())},
                     {"witness", doc.value("witness", nlohmann::json::object())},
                     {"windows_dropped", facts.witness.windows_dropped},
                     {"library_kernels", facts.library_kernels},
                     {"timer_step_ns", step},
                     {"shapes", nlohmann::json::array()}};
  for (std::size_t shape_idx = 0; shape_idx < shape_names.size() && shape_idx < facts.shapes.size(); ++shape_idx) {
    const auto& s = facts.shapes[shape_idx];
    nlohmann::json shape{{"shape", s.shape},
                         {"labels", nlohmann::json::object()},
                         {"timed_calls", s.samples},
                         {"timed_without_kernels", s.samples_without_kernels},
                         {"timed_off_stream", s.samples_off_stream},
                         {"timed_escaping", s.samples_escaping},
                         {"max_kernels_per_call", s.max_kernels_per_call},
                         {"sample_windows", s.sample_windows},
                         {"timed_missing_records", s.samples_missing_records},
                         {"timed_transfer_only", s.samples_transfer_only},
                         {"outside_timed_kernels", s.outside_timed_kernels}};
    if (s.expected_samples) shape["expected_samples"] = *s.expected_samples;
    for (const auto& [label, windows] : windows_of(doc, shape_idx)) shape["labels"][label] = label_summary(windows, step);
    if (s.span_median_ms) shape["span_median_ms"] = *s.span_median_ms;
    if (s.reported_median_ms) shape["reported_median_ms"] = *s.reported_median_ms;
    if (s.host_median_ms) shape["host_median_ms"] = *s.host_median_ms;
    if (s.span_median_ms && s.reported_median_ms) {
      const auto agreement = guard::compare_clocks(*s.span_median_ms, *s.reported_median_ms, s.rel_noise, s.held);
      shape["timer_misses_work"] = agreement == guard::clock_agreement::timer_short;
      shape["probe_misses_work"] = agreement == guard::clock_agreement::timer_long;
    }
    out["shapes"].push_back(std::move(shape));
  }
  return out;
}

candidate_evidence candidate_probe(const candidate_run& run, const fs::path& eval_dir) {
  candidate_evidence result;
  if (run.probe != "enabled") return result;
  const fs::path file = eval_dir / "outputs" / "probe.json";
  const auto text = try_read_file(file);
  if (!text) {
    result.problem = "no probe.json";
    return result;
  }
  if (!run.probe_key.empty()) {
    result.problem = signature_problem(file, *text, run.probe_key);
    result.forged = !result.problem.empty();
    if (result.forged) return result;
  }
  result.doc = parse_evidence(*text);
  if (result.doc.is_discarded()) result.problem = "probe.json is not a version 1 evidence file";
  return result;
}

void attach_probe(const judge_context& ctx, const catalog::problem& problem, const candidate_run& run,
                  const candidate_evidence& probe, const fs::path& ref_dir, guard::probe_evidence& evidence,
                  nlohmann::json& details) {
  if (run.probe.empty()) return;
  if (run.probe != "enabled") {
    details["probe"] = run.probe;
    return;
  }
  const nlohmann::json& doc = probe.doc;
  if (doc.is_discarded()) {
    details["probe"] = (probe.forged ? "untrusted: " : "missing: ") + probe.problem;
    // A process that ended early never reached the probe's writer; one that finished did.
    evidence.expected = run.events.done || probe.forged;
    (probe.forged ? evidence.forged : evidence.missing) = probe.problem;
    return;
  }
  std::vector<std::string> names;
  for (const auto& shape : ctx.shapes) names.push_back(shape.name);
  evidence = probe_facts(doc, names, run.events, problem.rule, read_probe(ref_dir / "probe.json"));
  details["probe"] = probe_summary(doc, names, evidence);
}

} // namespace arbiter::judge::detail
