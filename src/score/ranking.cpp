// The "ranked by" sentence of every leaderboard (CLI header, web page, JSON API), from the methods
// the stored timings actually used rather than from the device alone: a cuda run whose calls
// synchronise falls back from held events to plain events, and the sentence should say so.
#include "arbiter/score/ranking.hpp"
#include "arbiter/common/timing_kind.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace arbiter::score {

namespace {

std::string method_of(const store::timing_method_count& t) {
  if (!t.method.empty()) return t.method;
  // the only methods before migration 3
  return std::string(t.clock == timing_kind::clock_cuda_event ? timing_kind::method_events : timing_kind::method_steady);
}

std::string method_words(const std::string& method) {
  namespace kind = timing_kind;
  if (method == kind::method_held_events) return "held events";
  if (method == kind::method_cupti_span) return "CUPTI kernel spans";
  if (method == kind::method_steady) return "steady clock";
  if (method == kind::method_outside_cpu) return "the outside CPU account, where it exceeded the record";
  return method;
}

std::string baseline_words(const std::string& baselines) {
  if (baselines == "eager") return "eager PyTorch (the reference in a separate process)";
  return baselines;
}

/// "(held events)" or "(held events: 117 of 120 timings; events: 3)"; "" with no timings.
std::string methods_words(const std::vector<std::pair<std::string, std::int64_t>>& methods) {
  if (methods.empty()) return "";
  if (methods.size() == 1) return " (" + method_words(methods.front().first) + ")";
  std::int64_t total = 0;
  for (const auto& [method, count] : methods) total += count;
  std::string out = fmt::format(" ({}: {} of {} timings", method_words(methods.front().first), methods.front().second, total);
  for (std::size_t idx = 1; idx < methods.size(); ++idx)
    out += fmt::format("; {}: {}", method_words(methods[idx].first), methods[idx].second);
  return out + ")";
}

} // namespace

ranking describe_ranking(const std::string& device, const std::vector<store::timing_method_count>& timings) {
  ranking out;
  out.clock = device == "cuda" ? "device" : "host";
  std::map<std::string, std::int64_t> counts;
  std::set<std::string> baselines;
  for (const auto& t : timings) {
    counts[method_of(t)] += t.count;
    if (t.role == "baseline" && !t.baseline.empty()) baselines.insert(t.baseline);
  }
  out.methods.assign(counts.begin(), counts.end());
  std::stable_sort(out.methods.begin(), out.methods.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& name : baselines) out.baseline += (out.baseline.empty() ? "" : " and ") + name;
  if (out.baseline.empty()) out.baseline = "eager";
  out.sentence =
      fmt::format("speedup over {}: median {} time{} per shape on {}, geometric mean over shapes{}", baseline_words(out.baseline),
                  out.clock, methods_words(out.methods), device, timings.empty() ? " (no timings stored yet)" : "");
  return out;
}

} // namespace arbiter::score
