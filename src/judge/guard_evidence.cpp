#include "detail/guard_evidence.hpp"

#include "arbiter/runtime/timing_record.hpp"
#include "arbiter/verify/bundle_cache.hpp"
#include "detail/channel_evidence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace arbiter::judge::detail {

namespace fs = std::filesystem;

namespace {

constexpr int k_max_stress_scales = 16; // python/arbiter_runner/candidate.py MAX_STRESS_SCALES

/// A comparison whose expected file exists; a missing expected file means no such check.
void compare_into(guard::run_evidence& e, const std::string& kind, const std::string& where, const fs::path& expected,
                  const fs::path& actual, const catalog::tolerance& tol, verify::bundle_cache& bundles) {
  if (!fs::exists(expected)) return;
  const auto c = verify::compare_files(expected, actual, tol, bundles);
  e.checks.push_back({kind, where, c.ok, c.reason, false});
}

bool every_case_passed(const case_passes& passed) {
  return !passed.empty() && std::all_of(passed.begin(), passed.end(), [](bool ok) { return ok; });
}

void case_checks(guard::run_evidence& e, const judge_context& ctx, const catalog::problem& problem, const fs::path& ref,
                 const fs::path& out, const case_passes& passed, verify::bundle_cache& bundles) {
  const bool all_passed = every_case_passed(passed);
  for (std::size_t shape_idx = 0; shape_idx < ctx.shapes.size(); ++shape_idx) {
    const fs::path shape = std::to_string(shape_idx);
    for (int seed_idx = 0; seed_idx < ctx.num_seeds; ++seed_idx) {
      const std::size_t case_idx = shape_idx * static_cast<std::size_t>(ctx.num_seeds) + static_cast<std::size_t>(seed_idx);
      if (case_idx >= passed.size() || !passed[case_idx]) continue; // a re-run only means something after a correct call
      const fs::path dir = shape / std::to_string(seed_idx);
      const std::string where = fmt::format("shape {}, input set {}", ctx.shapes[shape_idx].name, seed_idx);
      // The reference writes a mutation set per case, or on input set 0 only for a large case
      // (python/arbiter_runner/tensors.py LARGE_CASE_BYTES): both re-runs follow it.
      if (!fs::exists(ref / dir / "mutation.arbb")) continue;
      compare_into(e, "mutation", where, ref / dir / "mutation.arbb", out / dir / "mutation.arbb", problem.tol, bundles);
      compare_into(e, "repeat", where, ref / dir / "outputs.arbb", out / dir / "repeat.arbb", problem.tol, bundles);
    }
    if (!all_passed) continue; // stress sets only once every case is correct
    for (int scale_idx = 0; scale_idx < k_max_stress_scales && scale_idx < static_cast<int>(problem.stress_scales.size());
         ++scale_idx) {
      const double scale = problem.stress_scales[static_cast<std::size_t>(scale_idx)];
      catalog::tolerance tol = problem.tol;
      tol.atol *= std::min(1.0, scale); // small inputs must not hide under an absolute tolerance
      const std::string file = "stress" + std::to_string(scale_idx) + ".arbb";
      compare_into(e, "stress", fmt::format("shape {}, scale {}", ctx.shapes[shape_idx].name, scale), ref / shape / file,
                   out / shape / file, tol, bundles);
    }
  }
}

// The captures the channel's index names (outputs/<shape>/timed.json is only a copy for people).
void timed_checks(guard::run_evidence& e, const judge_context& ctx, const catalog::problem& problem, const runner_events& events,
                  const fs::path& ref, const fs::path& out, verify::bundle_cache& bundles) {
  for (std::size_t shape_idx = 0; shape_idx < ctx.shapes.size(); ++shape_idx) {
    const fs::path shape = std::to_string(shape_idx);
    const auto index = channel_index(events, shape_idx);
    if (!index) continue;
    for (const auto& capture : *index) {
      if (!capture.is_object()) continue;
      const int set = capture.value("input_set", 0);
      const fs::path actual = out / shape / capture.value("file", "");
      const auto c = verify::compare_files(ref / shape / std::to_string(set) / "outputs.arbb", actual, problem.tol, bundles);
      guard::output_check check{
          "timed",
          fmt::format("shape {}, timed call {} (input set {})", ctx.shapes[shape_idx].name, capture.value("call_idx", 0), set),
          c.ok, c.reason, false};
      for (int other = 0; !c.ok && other < ctx.num_seeds; ++other)
        if (other != set &&
            verify::compare_files(ref / shape / std::to_string(other) / "outputs.arbb", actual, problem.tol, bundles).ok)
          check.matches_other_set = true;
      e.checks.push_back(check);
    }
  }
}

// S4: the candidate's error against a float64 reference, next to the float32 reference's own.
void float64_checks(guard::run_evidence& e, const judge_context& ctx, const fs::path& ref, const fs::path& out,
                    verify::bundle_cache& bundles) {
  for (std::size_t shape_idx = 0; shape_idx < ctx.shapes.size(); ++shape_idx) {
    const fs::path dir = fs::path(std::to_string(shape_idx)) / "0";
    if (!fs::exists(ref / dir / "float64.arbb") || !fs::exists(out / dir / "outputs.arbb")) continue;
    const auto truth = bundles.read(ref / dir / "float64.arbb");
    const auto ref_dev = verify::deviation_from(*truth, *bundles.read(ref / dir / "outputs.arbb"));
    const double got_err = verify::deviation_from(*truth, *bundles.read(out / dir / "outputs.arbb")).max_abs_err;
    const double ref_err = ref_dev.max_abs_err;
    const double allowed = 64 * std::max(ref_err, 1e-7 * ref_dev.max_abs_truth);
    e.checks.push_back({"float64", "shape " + ctx.shapes[shape_idx].name + ", input set 0", got_err <= allowed,
                        fmt::format("max abs error vs float64 {:.3g}, the float32 reference's {:.3g} (allowed {:.3g})", got_err,
                                    ref_err, allowed),
                        false});
  }
}

// The byte an output that was allocated but never written reads as: on cuda the 0xFF blocks the
// runner frees into the caching allocator; on cpu glibc's fill of every fresh allocation
// (MALLOC_PERTURB_=1 in the runner's environment, runner_environment).
unsigned char poison_byte(const judge_context& ctx) { return ctx.device == "cpu" ? 0xFE : 0xFF; }

// Bytes of `got` that hold the poison where the expected output does not (all of them when the two
// differ in size): an expected output made of that byte is not evidence against the candidate.
std::size_t unexplained_poison(const verify::byte_buffer& got, const verify::byte_buffer* expected, unsigned char poison) {
  const bool aligned = expected != nullptr && expected->size() == got.size();
  std::size_t count = 0;
  for (std::size_t i = 0; i < got.size(); ++i) count += got[i] == poison && !(aligned && (*expected)[i] == poison);
  return count;
}

std::string poison_evidence(const judge_context& ctx, const fs::path& ref, const fs::path& out, verify::bundle_cache& bundles) {
  const unsigned char poison = poison_byte(ctx);
  for (std::size_t shape_idx = 0; shape_idx < ctx.shapes.size(); ++shape_idx) {
    const fs::path dir = fs::path(std::to_string(shape_idx)) / "0";
    if (!fs::exists(out / dir / "outputs.arbb")) continue;
    std::shared_ptr<const verify::bundle> values, expected = std::make_shared<const verify::bundle>();
    try {
      values = bundles.read(out / dir / "outputs.arbb");
      if (fs::exists(ref / dir / "outputs.arbb")) expected = bundles.read(ref / dir / "outputs.arbb");
    } catch (const std::exception&) {
      continue;
    }
    for (std::size_t v = 0; v < values->size(); ++v) {
      const auto& bytes = (*values)[v].bytes;
      const auto count = unexplained_poison(bytes, v < expected->size() ? &(*expected)[v].bytes : nullptr, poison);
      if (!bytes.empty() && count * 2 >= bytes.size())
        return fmt::format("{} of {} bytes of output {} (shape {}, input set 0) still hold the allocator's 0x{:02X} poison",
                           count, bytes.size(), v, ctx.shapes[shape_idx].name, poison);
    }
  }
  return "";
}

void observations(guard::run_evidence& e, const runner_events& events, const runner_events& reference) {
  for (const auto& census : events.census)
    for (const auto& name : census.value("new_threads", nlohmann::json::array()))
      e.thread_leaks.push_back(name.get<std::string>() + " (" + census.value("stage", "?") + ")");
  for (const auto& integrity : events.integrity)
    for (const auto& name : integrity.value("patched", nlohmann::json::array()))
      if (std::find(e.patched.begin(), e.patched.end(), name.get<std::string>()) == e.patched.end())
        e.patched.push_back(name.get<std::string>());
  for (const auto& c : events.cases) {
    for (const auto& t : c.value("output_types", nlohmann::json::array())) e.output_types.push_back(t.get<std::string>());
    for (const auto& a : c.value("aliases", nlohmann::json::array())) e.aliases.push_back(a.get<std::string>());
    e.inputs_mutated = e.inputs_mutated || c.value("inputs_mutated", false);
  }
  for (const auto& c : reference.cases) {
    e.reference_aliases = e.reference_aliases || c.value("output_aliases_input", false);
    e.reference_mutates = e.reference_mutates || c.value("inputs_mutated", false);
  }
  if (events.fault) e.channel.push_back("the channel is not the runner's frames: " + *events.fault);
  if (events.done_count > 1) e.channel.push_back(std::to_string(events.done_count) + " 'done' events");
  if (events.after_done > 0) e.channel.push_back(std::to_string(events.after_done) + " events after 'done'");
}

double fastest_fresh_call(const runner_events& events, std::size_t shape_idx) {
  double fastest = std::numeric_limits<double>::infinity();
  for (const auto& c : events.cases)
    if (c.value("shape_idx", -1) == static_cast<int>(shape_idx) && c.contains("fresh_call_ms") && c["fresh_call_ms"].is_number())
      fastest = std::min(fastest, c["fresh_call_ms"].get<double>());
  return fastest;
}

} // namespace

std::vector<guard::clock_span> clock_spans(const judge_context& ctx, const runner_events& events) {
  std::vector<guard::clock_span> spans;
  for (std::size_t shape_idx = 0; shape_idx < ctx.shapes.size(); ++shape_idx)
    for (const auto* timing : shape_events(events.timings, shape_idx)) {
      const auto it = timing->find("record");
      const auto record = it != timing->end() ? runtime::parse_timing_record(*it) : std::nullopt;
      if (!record || !record->clock_check.sample_clock_s || !record->clock_check.kernel_clock_s) continue;
      spans.push_back({ctx.shapes[shape_idx].name, *record->clock_check.sample_clock_s, *record->clock_check.kernel_clock_s});
    }
  return spans;
}

std::vector<guard::work_check> work_checks(const judge_context& ctx, const runner_events& events, const runner_events& reference,
                                           const std::vector<store::measurement_record>& measurements) {
  std::vector<guard::work_check> checks;
  for (std::size_t shape_idx = 0; shape_idx < ctx.shapes.size(); ++shape_idx) {
    const std::string& shape = ctx.shapes[shape_idx].name;
    const auto timed_of = [&](const char* role) -> double {
      for (const auto& m : measurements)
        if (m.role == role && m.shape == shape) return std::max(m.median_ms, m.host_median_ms.value_or(0.0));
      return 0;
    };
    const double fresh = fastest_fresh_call(events, shape_idx), timed = timed_of("candidate");
    if (!std::isfinite(fresh) || timed <= 0) continue;
    // On cuda only: there a lone synchronised call of a tiny kernel costs its launch and the round
    // trip for any model. On cpu the candidate's fresh call runs on a reserved heap and the
    // reference's does not, so the reference's ratio would widen the allowance by page faults.
    const double reference_fresh = fastest_fresh_call(reference, shape_idx), reference_timed = timed_of("baseline");
    const double reference_ratio =
        ctx.device == "cuda" && std::isfinite(reference_fresh) && reference_timed > 0 ? reference_fresh / reference_timed : 0;
    checks.push_back({shape, fresh, timed, reference_ratio});
  }
  return checks;
}

guard::run_evidence collect_evidence(const judge_context& ctx, const catalog::problem& problem, const candidate_run& run,
                                     const fs::path& ref_dir, const fs::path& eval_dir, const case_passes& passed,
                                     verify::bundle_cache& bundles) {
  guard::run_evidence e;
  const bool all_passed = every_case_passed(passed);
  observations(e, run.events, read_events(ref_dir / "events.jsonl"));
  channel_checks(e, ctx, run, eval_dir);
  e.poisoned = poison_evidence(ctx, ref_dir / "expected", eval_dir / "outputs", bundles);
  try {
    case_checks(e, ctx, problem, ref_dir / "expected", eval_dir / "outputs", passed, bundles);
    if (!all_passed) return e;
    timed_checks(e, ctx, problem, run.events, ref_dir / "expected", eval_dir / "outputs", bundles);
    float64_checks(e, ctx, ref_dir / "expected", eval_dir / "outputs", bundles);
  } catch (const std::exception& error) { // an unreadable reference file: ours, not the candidate's
    e.checks.push_back({"internal", "reading the guard's files", true, error.what(), false});
  }
  return e;
}

} // namespace arbiter::judge::detail
