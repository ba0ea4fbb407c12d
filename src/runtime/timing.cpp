#include "arbiter/runtime/timing.hpp"

#include "arbiter/runtime/arbiter_runtime.h"
#include "failure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <thread>

namespace arbiter::runtime {

double steady_seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

void sleep_seconds(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

namespace {

void check_rule(const stop_rule& rule, int32_t warmup_calls) {
  const auto bad = [](const std::string& what) { fail(ARB_E_ARG, "timing config: " + what); };
  if (warmup_calls < 0) bad("warmup_calls < 0");
  if (rule.min_samples < 1) bad("min_samples < 1");
  if (rule.max_samples < rule.min_samples) bad("max_samples < min_samples");
  if (!(rule.min_time_s >= 0) || !(rule.max_time_s >= 0)) bad("negative or NaN time limit");
  if (!(rule.target_rel_noise >= 0)) bad("negative or NaN target_rel_noise");
  if (!(rule.warmup_time_s >= 0) || !std::isfinite(rule.warmup_time_s)) bad("negative or non-finite warmup_time_s");
  if (!(rule.rest_ratio >= 0) || !std::isfinite(rule.rest_ratio)) bad("negative or non-finite rest_ratio");
}

void invoke(const call_fn& call, int64_t call_idx, const char* what = "forward call") {
  const int rc = call(call_idx);
  if (rc != 0)
    fail(ARB_E_CALLBACK,
         std::string(what) + " " + std::to_string(call_idx) + " failed (callback returned " + std::to_string(rc) + ")");
}

// The median's noise needs a sort; recomputing it after every sample would make long runs
// quadratic, so past the minimums it is re-estimated every ~1/64 of the samples taken so far,
// and always on the sample where a cap would end the loop (so a converged run says "noise").
double noise_if_due(const std::vector<double>& times_ms, const stop_rule& rule, double elapsed_s) {
  const auto samples = static_cast<int64_t>(times_ms.size());
  if (samples < rule.min_samples || elapsed_s < rule.min_time_s) return std::numeric_limits<double>::infinity();
  const int64_t stride = std::max<int64_t>(1, samples / 64);
  const bool at_cap = samples >= rule.max_samples || elapsed_s >= rule.max_time_s;
  if (samples % stride != 0 && !at_cap) return std::numeric_limits<double>::infinity();
  return summarize_samples(times_ms).rel_noise;
}

} // namespace

namespace {

struct marked_window {
  window_marks* marks;
  marked_window(window_marks* m, const char* label, int64_t index) : marks(m) {
    if (marks) marks->begin(label, index);
  }
  ~marked_window() {
    if (marks) marks->end();
  }
  marked_window(const marked_window&) = delete;
  marked_window& operator=(const marked_window&) = delete;
};

void record(timing_run& run, const clock_sample& s, int64_t sample_idx) {
  (s.throttled ? run.throttled_ms : run.times_ms).push_back(s.ms);
  if (s.throttled) run.dropped_idx.push_back(sample_idx);
  if (s.held && !s.throttled) ++run.held;
  if (s.power_capped) {
    ++run.power_capped;
    run.capped_idx.push_back(sample_idx);
  }
  run.sample_sm_mhz.push_back(s.sm_mhz);
}

} // namespace

timing_run run_timing(const stop_rule& rule, int32_t warmup_calls, sample_clock& clock, const call_fn& call, const wall_fn& wall,
                      const timing_hooks& hooks) {
  window_marks* marks = hooks.marks;
  const auto after = [&](int64_t call_idx) {
    if (hooks.after_call) invoke(hooks.after_call, call_idx, "after-call hook of call");
  };
  check_rule(rule, warmup_calls);
  timing_run run;
  run.device = clock.device_name();
  run.clock = clock.clock_name();
  run.rest_ratio = rule.rest_ratio;
  // A paced call: prepared like a sample (flush, synchronise: one call in flight), made, then
  // followed by its rest when the rule asks for one. A rest never outlasts its phase: the
  // warm-up's time, the sampling's max_time_s (deadline_s, on the wall clock).
  const bool rests = rule.rest_ratio > 0;
  const auto paced = [&](int64_t prepare_idx, double deadline_s, const auto& body) {
    const double started_s = rests ? wall() : 0.0;
    clock.prepare(prepare_idx);
    body();
    if (!rests) return;
    const double ended_s = wall();
    const double rest_s = std::clamp(rule.rest_ratio * (ended_s - started_s), 0.0, std::max(0.0, deadline_s - ended_s));
    hooks.rest(rest_s);
    run.rest_s += rest_s;
  };
  int64_t call_idx = 0;
  // The warm-up by time counts from its own first call: slow first calls (a library's set-up, an
  // autotuner) must not use it up before the GPU has run the kernel long enough to leave its boost.
  std::optional<double> timed_warmup_start_s;
  const auto warming = [&] {
    if (call_idx < warmup_calls) return true;
    if (!(rule.warmup_time_s > 0) || call_idx >= warmup_calls + k_max_timed_warmups) return false;
    const double now_s = wall();
    if (!timed_warmup_start_s) timed_warmup_start_s = now_s;
    return now_s - *timed_warmup_start_s < rule.warmup_time_s;
  };
  for (; warming(); ++call_idx) {
    const auto warm_up = [&] {
      {
        const marked_window window(marks, "warmup", call_idx);
        invoke(call, call_idx);
      }
      after(call_idx);
    };
    if (call_idx < warmup_calls) warm_up();
    else // the warm-up by time
      paced(call_idx, *timed_warmup_start_s + rule.warmup_time_s, warm_up);
  }
  run.warmup = static_cast<int32_t>(call_idx);
  // Each clock read right after the other, at both ends: the spans then cover the same calls.
  const double start_s = wall();
  const auto kernel_now = [&] { return hooks.kernel_clock ? hooks.kernel_clock() : NAN; };
  const double start_kernel_s = kernel_now();
  const double sampling_deadline_s = start_s + rule.max_time_s; // where a rest ends at the latest
  for (int64_t sample_idx = 0;; ++sample_idx) {
    paced(sample_idx, sampling_deadline_s, [&] {
      {
        const marked_window window(marks, "sample", sample_idx);
        record(run, clock.time_call([&] { invoke(call, call_idx); }), sample_idx);
      }
      after(call_idx++);
    });
    if (sample_idx % k_host_latency_every == 0 && clock.measures_host_latency()) {
      paced(sample_idx, sampling_deadline_s, [&] {
        {
          const marked_window window(marks, "latency", sample_idx);
          run.host_ms.push_back(clock.time_host([&] { invoke(call, call_idx); }));
        }
        after(call_idx++);
      });
    }
    const double elapsed_s = wall() - start_s;
    const double rel_noise = noise_if_due(run.times_ms, rule, elapsed_s);
    const auto stop = should_stop(rule, static_cast<int64_t>(run.times_ms.size()), elapsed_s, rel_noise);
    if (stop) {
      run.stop = *stop;
      const double end_s = wall(); // read again: the noise estimate above is outside both spans
      run.check = {end_s - start_s, kernel_now() - start_kernel_s, kernel_clock_source()};
      break;
    }
  }
  if (run.times_ms.empty()) { // every sample throttled: report them, flagged, rather than nothing
    run.all_throttled = true;
    run.times_ms = run.throttled_ms;
    run.dropped_idx.clear();
  }
  run.stats = summarize_samples(run.times_ms);
  run.facts = clock.info();
  return run;
}

} // namespace arbiter::runtime
