#include "arbiter/runtime/timing.hpp"

#include "arbiter/runtime/arbiter_runtime.h"
#include "failure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace arbiter::runtime {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

namespace {

void check_rule(const stop_rule& rule, int32_t warmup_calls) {
  const auto bad = [](const std::string& what) { fail(ARB_E_ARG, "timing config: " + what); };
  if (warmup_calls < 0) bad("warmup_calls < 0");
  if (rule.min_samples < 1) bad("min_samples < 1");
  if (rule.max_samples < rule.min_samples) bad("max_samples < min_samples");
  if (!(rule.min_time_s >= 0) || !(rule.max_time_s >= 0)) bad("negative or NaN time limit");
  if (!(rule.target_rel_noise >= 0)) bad("negative or NaN target_rel_noise");
}

void invoke(const call_fn& call, int64_t call_idx) {
  const int rc = call(call_idx);
  if (rc != 0)
    fail(ARB_E_CALLBACK, "forward call " + std::to_string(call_idx) + " failed (callback returned " +
                             std::to_string(rc) + ")");
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

timing_run run_timing(const stop_rule& rule, int32_t warmup_calls, sample_clock& clock, const call_fn& call,
                      const wall_fn& wall) {
  check_rule(rule, warmup_calls);
  timing_run run;
  run.device = clock.device_name();
  run.clock = clock.clock_name();
  run.warmup = warmup_calls;
  int64_t call_idx = 0;
  for (; call_idx < warmup_calls; ++call_idx) invoke(call, call_idx);
  const double start_s = wall();
  for (int64_t sample_idx = 0;; ++sample_idx, ++call_idx) {
    clock.prepare(sample_idx);
    run.times_ms.push_back(clock.time_call([&] { invoke(call, call_idx); }));
    const double elapsed_s = wall() - start_s;
    const double rel_noise = noise_if_due(run.times_ms, rule, elapsed_s);
    const auto stop = should_stop(rule, static_cast<int64_t>(run.times_ms.size()), elapsed_s, rel_noise);
    if (stop) {
      run.stop = *stop;
      break;
    }
  }
  run.stats = summarize_samples(run.times_ms);
  return run;
}

} // namespace arbiter::runtime
