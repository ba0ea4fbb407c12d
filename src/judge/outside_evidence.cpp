#include "detail/outside_evidence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>

namespace arbiter::judge::detail {

namespace fs = std::filesystem;

namespace {

constexpr int k_overhead_batches = 3; // python/arbiter_runner/outside.py OVERHEAD_REPEATS

/// The time a role's record claims for one call: the median on the host clock; on cuda the larger
/// of device time and host latency, since back-to-back calls cost whichever the host or the device
/// takes longer for (a call shorter than its launch runs at the launch rate).
std::optional<double> claimed_ms(const std::vector<store::measurement_record>& measurements, const std::string& shape,
                                 const char* role) {
  for (const auto& m : measurements)
    if (m.role == role && m.shape == shape && m.median_ms > 0) return std::max(m.median_ms, m.host_median_ms.value_or(0.0));
  return std::nullopt;
}

/// The fastest of the reference's overhead batches and the spread of the three, on one witness.
struct cost {
  double low = 0, spread = 0;
};

template <class Measure>
std::optional<cost> overhead(const outside_record& reference, std::size_t shape_idx, Measure measure) {
  double low = std::numeric_limits<double>::infinity(), high = 0;
  for (int repeat_idx = 0; repeat_idx < k_overhead_batches; ++repeat_idx) {
    const auto batch = find_batch(reference, shape_idx, "overhead" + std::to_string(repeat_idx));
    const auto value = batch ? measure(*batch) : std::nullopt;
    if (!value) return std::nullopt;
    low = std::min(low, *value);
    high = std::max(high, *value);
  }
  return cost{low, high - low};
}

std::optional<double> wall_of(const outside_batch& batch) { return batch.wall_ms; }
std::optional<double> cpu_of(const outside_batch& batch) { return batch.cpu_ms; }

struct shape_batches {
  outside_batch candidate, reference;
  std::optional<outside_batch> own_overhead; ///< the candidate's no-call batch
};

/// Both sides' batches of a shape; what is missing goes to the evidence and nullopt comes back.
std::optional<shape_batches> batches_of(guard::run_evidence& e, const candidate_run& run,
                                        const std::optional<outside_record>& reference, std::size_t shape_idx,
                                        const std::string& shape) {
  const auto candidate = find_batch(run.outside, shape_idx, "candidate");
  if (!candidate) {
    if (run.events.done) e.channel.push_back("shape " + shape + " was timed but no outside-clock batch ran");
    return std::nullopt;
  }
  const auto own = reference ? find_batch(*reference, shape_idx, "reference") : std::nullopt;
  if (!own || !overhead(*reference, shape_idx, wall_of)) {
    e.unavailable.push_back("the reference's outside-clock batches for shape " + shape);
    return std::nullopt;
  }
  return shape_batches{*candidate, *own, find_batch(run.outside, shape_idx, "overhead")};
}

double per_call(double spent_ms, double overhead_ms, int calls) {
  return std::max(0.0, spent_ms - overhead_ms) / std::max(calls, 1);
}

struct witness_rule {
  const char* name;
  std::optional<double> (*measure)(const outside_batch&);
  double min_ratio, own_overhead_cap, overhead_noise, floor_ms;
};

// The wall: the candidate's own no-call batch, timed beside its batch under the same load and the
// same sandbox, is its overhead, up to a cap times the reference's: a process that slows it hides
// at most that much, one that skips its work only counts its calls dearer. (A sandboxed process
// moved the same files 3x slower than the reference on the CPU host.)
constexpr witness_rule k_wall{"wall",
                              wall_of,
                              guard::k_outside_min_ratio,
                              guard::k_outside_own_overhead_cap,
                              guard::k_outside_overhead_noise,
                              guard::k_outside_floor_ms};
// The CPU time: the same account on the kernel's count of the process's CPU time, which a loaded
// host does not inflate; hence a smaller ratio, cap, noise share and floor.
constexpr witness_rule k_cpu{"cpu",
                             cpu_of,
                             guard::k_outside_cpu_min_ratio,
                             guard::k_outside_cpu_own_overhead_cap,
                             guard::k_outside_cpu_noise,
                             guard::k_outside_cpu_floor_ms};

/// One witness's check of a shape, or nullopt when a batch lacks its measure.
std::optional<guard::outside_check> witness_check(const witness_rule& rule, const shape_batches& b,
                                                  const outside_record& reference, std::size_t shape_idx,
                                                  const std::string& shape, double claimed, double reference_claimed,
                                                  nlohmann::json& detail) {
  const auto spent = rule.measure(b.candidate), reference_spent = rule.measure(b.reference);
  const auto cost = overhead(reference, shape_idx, rule.measure);
  if (!spent || !reference_spent || !cost) return std::nullopt;
  double overhead_ms = cost->low;
  if (const auto mine = b.own_overhead ? rule.measure(*b.own_overhead) : std::nullopt)
    overhead_ms = std::min(*mine, rule.own_overhead_cap * cost->low);
  guard::outside_check check{shape, rule.name, b.candidate.calls, per_call(*spent, overhead_ms, b.candidate.calls), claimed,
                             0,     0};
  const double reference_per_call = per_call(*reference_spent, cost->low, b.reference.calls);
  check.allowed_ratio = std::max(rule.min_ratio, guard::k_outside_ref_factor * reference_per_call / reference_claimed);
  check.slack_ms = (cost->spread + rule.overhead_noise * overhead_ms) / std::max(check.calls, 1) + rule.floor_ms;
  detail[rule.name] = {{"spent_ms", *spent},
                       {"overhead_ms", overhead_ms},
                       {"overhead_spread_ms", cost->spread},
                       {"per_call_ms", check.per_call_ms},
                       {"reference_per_call_ms", reference_per_call},
                       {"slack_ms", check.slack_ms},
                       {"allowed_ms", claimed * check.allowed_ratio + check.slack_ms}};
  return check;
}

void check_outputs(guard::run_evidence& e, const catalog::problem& problem, const fs::path& ref_dir, const fs::path& eval_dir,
                   std::size_t shape_idx, const std::string& shape, int calls, verify::bundle_cache& bundles) {
  const std::string idx = std::to_string(shape_idx);
  for (int set_idx = 0; set_idx < calls; ++set_idx) {
    const std::string name = std::to_string(set_idx) + ".arbb";
    const auto c = verify::compare_files(ref_dir / "expected" / idx / "outside" / name,
                                         eval_dir / "outside-kept" / idx / "candidate" / name, problem.tol, bundles);
    e.checks.push_back({"outside", fmt::format("shape {}, outside set {}", shape, set_idx), c.ok, c.reason, false});
  }
}

} // namespace

namespace {

/// The CPU the candidate's processes used while the runner waited after each of its answers: the
/// cgroup's account, else the sum of its threads' run times read from /proc.
void busy_after_answer(guard::run_evidence& e, const shape_batches& b, const std::string& shape, nlohmann::json& detail) {
  for (const auto* batch : {&b.candidate, b.own_overhead ? &*b.own_overhead : nullptr}) {
    if (!batch) continue;
    if (batch->threads) detail["threads_at_answer"][batch->label] = *batch->threads;
    if (batch->threads_busy_ms) detail["threads_busy_ms"][batch->label] = *batch->threads_busy_ms;
    if (!batch->busy_threads.empty()) detail["busy_threads"][batch->label] = batch->busy_threads;
    const auto busy = batch->busy_ms ? batch->busy_ms : batch->threads_busy_ms;
    // The runner waits on the pipe through the window: a window that read no account, or found no
    // thread of the evaluation, saw nothing, and an unseen window is no quiet one (fail closed).
    if (!busy || (batch->threads && *batch->threads == 0)) {
      e.unavailable.push_back(
          fmt::format("the quiet window's account of shape {}, batch {} ({})", shape, batch->label,
                      busy ? "no thread of the evaluation found" : "neither the cgroup's CPU nor its threads' run times"));
      continue;
    }
    detail["busy_after_answer_ms"][batch->label] = *busy;
    if (*busy <= guard::k_busy_after_answer_ms) continue;
    std::string who;
    for (std::size_t i = 0; i < batch->busy_threads.size() && i < 3; ++i) who += (i ? ", " : "") + batch->busy_threads[i];
    e.busy_after_answer.push_back(fmt::format("shape {}, batch {}: {:.3g} ms of CPU ({}) in the {} ms after its answer{}", shape,
                                              batch->label, *busy,
                                              batch->busy_ms ? "the cgroup's account" : "its threads' run times", k_quiet_ms,
                                              who.empty() ? "" : " (threads that ran: " + who + ")"));
  }
}

} // namespace

void outside_evidence(guard::run_evidence& e, const judge_context& ctx, const catalog::problem& problem, const candidate_run& run,
                      const fs::path& ref_dir, const fs::path& eval_dir,
                      const std::vector<store::measurement_record>& measurements, bool outputs_checked,
                      verify::bundle_cache& bundles, nlohmann::json& details) {
  for (const auto& fault : run.outside.faults) e.channel.push_back("outside clock: " + fault);
  const auto reference = read_outside(ref_dir / "outside.json");
  details["outside_clock"] = nlohmann::json::array();
  for (std::size_t shape_idx = 0; shape_idx < ctx.shapes.size(); ++shape_idx) {
    const std::string& shape = ctx.shapes[shape_idx].name;
    const auto claimed = claimed_ms(measurements, shape, "candidate");
    const auto reference_claimed = claimed_ms(measurements, shape, "baseline");
    if (!claimed || !reference_claimed) continue; // not timed: nothing claimed
    const auto b = batches_of(e, run, reference, shape_idx, shape);
    if (!b) continue;
    nlohmann::json detail{
        {"shape", shape}, {"calls", b->candidate.calls}, {"claimed_ms", *claimed}, {"reference_claimed_ms", *reference_claimed}};
    const auto wall = witness_check(k_wall, *b, *reference, shape_idx, shape, *claimed, *reference_claimed, detail);
    // On the CPU the kernel's account of the CPU time judges where there is one: the calls are all
    // CPU there, and a loaded host, which makes the wall's overhead swing by more than the calls
    // cost, does not move it (the wall stays in the details). A GPU call's time is the device's:
    // on cuda the wall judges.
    std::optional<guard::outside_check> cpu;
    if (ctx.device == "cpu") {
      cpu = witness_check(k_cpu, *b, *reference, shape_idx, shape, *claimed, *reference_claimed, detail);
      if (!cpu) detail["cpu"] = "no account of the process's CPU time (no cgroup): the wall judges";
    }
    if (cpu) e.outside.push_back(*cpu);
    else if (wall) e.outside.push_back(*wall);
    busy_after_answer(e, *b, shape, detail);
    details["outside_clock"].push_back(detail);
    if (outputs_checked) check_outputs(e, problem, ref_dir, eval_dir, shape_idx, shape, b->candidate.calls, bundles);
  }
}

} // namespace arbiter::judge::detail
