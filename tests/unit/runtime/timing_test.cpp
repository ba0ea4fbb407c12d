// Statistics, stopping rule and the sampling loop of the runtime, driven by a fake clock and a
// fake wall clock so that every stop reason is reached deterministically.
#include "arbiter/runtime/kernel_clock.hpp"
#include "arbiter/runtime/timing.hpp"
#include "arbiter/runtime/timing_stats.hpp"
#include "clock_monitor.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

using namespace arbiter::runtime;

namespace {

// Returns times from a cycle of values and records what the loop asked of it. With host
// latency, every host call takes 100 ms; samples whose index is in throttled_at come back
// throttled, those in capped_at power-capped at 1965 MHz (1980 otherwise).
class fake_clock final : public sample_clock {
 public:
  explicit fake_clock(std::vector<double> cycle_ms, bool host_latency = false)
      : m_cycle_ms(std::move(cycle_ms)), m_host_latency(host_latency) {}
  const char* device_name() const noexcept override { return "cpu"; }
  const char* clock_name() const noexcept override { return "fake"; }
  clock_info info() const override { return {"fake_method", "", "none", 0.001, 0.002, 0}; }
  void prepare(int64_t sample_idx) override { prepared.push_back(sample_idx); }
  clock_sample time_call(const std::function<void()>& call) override {
    call();
    clock_sample s{m_cycle_ms[timed % m_cycle_ms.size()], true, false, false, 1980};
    s.throttled = std::find(throttled_at.begin(), throttled_at.end(), timed) != throttled_at.end();
    s.power_capped = std::find(capped_at.begin(), capped_at.end(), timed) != capped_at.end();
    if (s.power_capped) s.sm_mhz = 1965;
    ++timed;
    return s;
  }
  bool measures_host_latency() const noexcept override { return m_host_latency; }
  double time_host(const std::function<void()>& call) override {
    call();
    return 100.0;
  }
  std::vector<int64_t> prepared;
  std::vector<size_t> throttled_at;
  std::vector<size_t> capped_at;
  size_t timed = 0;

 private:
  std::vector<double> m_cycle_ms;
  bool m_host_latency;
};

// Records the windows the loop opened, as "label index" strings, checking they never nest.
class recording_marks final : public window_marks {
 public:
  void begin(const char* label, int64_t index) override {
    EXPECT_FALSE(open);
    open = true;
    windows.push_back(std::string(label) + " " + std::to_string(index));
  }
  void end() override {
    EXPECT_TRUE(open);
    open = false;
  }
  std::vector<std::string> windows;
  bool open = false;
};

// Each reading advances by step_s, so elapsed time grows by step_s per sample (steps that are
// powers of two keep the sums exact).
wall_fn stepping_wall(double step_s) {
  return [now = 0.0, step_s]() mutable { return now += step_s; };
}

} // namespace

TEST(timing_stats, summarizes_a_known_sample_set) {
  const std::vector<double> times = {5, 1, 4, 2, 3};
  const timing_stats stats = summarize_samples(times);
  EXPECT_EQ(stats.samples, 5);
  EXPECT_DOUBLE_EQ(stats.median_ms, 3);
  EXPECT_DOUBLE_EQ(stats.p10_ms, 1.4);
  EXPECT_DOUBLE_EQ(stats.p90_ms, 4.6);
  EXPECT_DOUBLE_EQ(stats.mean_ms, 3);
  EXPECT_DOUBLE_EQ(stats.min_ms, 1);
  EXPECT_DOUBLE_EQ(stats.max_ms, 5);
  EXPECT_DOUBLE_EQ(stats.stddev_ms, std::sqrt(2.5));
  EXPECT_NEAR(stats.rel_noise, 1.2533 * std::sqrt(2.5) / std::sqrt(5.0) / 3, 1e-12);
}

TEST(timing_stats, even_count_median_interpolates) {
  const std::vector<double> times = {10, 2, 4, 8};
  const timing_stats stats = summarize_samples(times);
  EXPECT_DOUBLE_EQ(stats.median_ms, 6);
  EXPECT_DOUBLE_EQ(stats.p10_ms, 2.6); // position 0.3 between 2 and 4
}

TEST(timing_stats, degenerate_sets) {
  EXPECT_THROW(summarize_samples(std::vector<double>{}), std::invalid_argument);
  const timing_stats one = summarize_samples(std::vector<double>{2.5});
  EXPECT_DOUBLE_EQ(one.median_ms, 2.5);
  EXPECT_TRUE(std::isinf(one.rel_noise)); // one sample says nothing about noise
  EXPECT_DOUBLE_EQ(summarize_samples(std::vector<double>{2, 2, 2}).rel_noise, 0);
}

TEST(timing_stats, stopping_rule) {
  const stop_rule rule{10, 100, 0.5, 2.0, 0.01};
  EXPECT_EQ(should_stop(rule, 9, 1.0, 0.001), std::nullopt);  // too few samples
  EXPECT_EQ(should_stop(rule, 10, 0.4, 0.001), std::nullopt); // too little time
  EXPECT_EQ(should_stop(rule, 10, 0.5, 0.001), stop_reason::noise);
  EXPECT_EQ(should_stop(rule, 50, 1.0, 0.02), std::nullopt);
  EXPECT_EQ(should_stop(rule, 50, 2.0, 0.02), stop_reason::max_time);
  EXPECT_EQ(should_stop(rule, 100, 1.0, 0.02), stop_reason::max_samples);
  EXPECT_EQ(should_stop(rule, 100, 2.0, 0.001), stop_reason::noise); // converged wins
  EXPECT_STREQ(stop_reason_name(stop_reason::max_time), "max_time");
}

TEST(timing_loop, warms_up_then_samples_with_consecutive_call_indices) {
  fake_clock clock({1.0, 3.0});
  std::vector<int64_t> calls;
  const stop_rule rule{4, 6, 0.0, 1e9, 0.0};
  const timing_run run = run_timing(
      rule, 3, clock,
      [&](int64_t call_idx) {
        calls.push_back(call_idx);
        return 0;
      },
      stepping_wall(0.001));
  EXPECT_EQ(run.stop, stop_reason::max_samples);
  EXPECT_EQ(run.warmup, 3);
  EXPECT_EQ(calls, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(clock.prepared, (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(run.times_ms, (std::vector<double>{1, 3, 1, 3, 1, 3}));
  EXPECT_DOUBLE_EQ(run.stats.median_ms, 2);
}

TEST(timing_loop, warms_up_by_time_with_each_extra_call_prepared_like_a_sample) {
  fake_clock clock({1.0});
  std::vector<int64_t> calls;
  stop_rule rule{2, 2, 0.0, 1e9, 0.0};
  // The wall steps 1 ms per read: calls 0-1 by count, then 2-4 by time (read at 0, 1 and 2 ms of
  // the timed warm-up; the read at 3 ms ends it).
  rule.warmup_time_s = 0.0025;
  const timing_run run = run_timing(
      rule, 2, clock,
      [&](int64_t call_idx) {
        calls.push_back(call_idx);
        return 0;
      },
      stepping_wall(0.001));
  EXPECT_EQ(run.warmup, 5);
  EXPECT_EQ(calls, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(clock.prepared, (std::vector<int64_t>{2, 3, 4, 0, 1})); // warm-ups 2-4; then samples 0, 1
  EXPECT_EQ(run.times_ms.size(), 2u);
}

TEST(timing_loop, slow_first_calls_do_not_use_up_the_warm_up_by_time) {
  // The first calls take a second each (a library's set-up): the warm-up by time starts after them.
  fake_clock clock({1.0});
  double now_s = 0;
  stop_rule rule{1, 1, 0.0, 1e9, 0.0};
  rule.warmup_time_s = 0.0025;
  const timing_run run = run_timing(
      rule, 3, clock,
      [&](int64_t call_idx) {
        now_s += call_idx < 3 ? 1.0 : 0.001;
        return 0;
      },
      [&] { return now_s; });
  EXPECT_EQ(run.warmup, 6); // 3 by count, then calls 3-5 by time (at 0, 1 and 2 ms of it)
  EXPECT_EQ(run.times_ms.size(), 1u);
}

TEST(timing_loop, warm_up_by_time_adds_a_bounded_number_of_calls) {
  fake_clock clock({1.0});
  stop_rule rule{1, 1, 0.0, 1e9, 0.0};
  rule.warmup_time_s = 1e6; // never reached: the bound ends the warm-up
  const timing_run run = run_timing(
      rule, 3, clock, [](int64_t) { return 0; }, stepping_wall(0.001));
  EXPECT_EQ(run.warmup, 3 + k_max_timed_warmups);
  EXPECT_EQ(run.times_ms.size(), 1u);
}

TEST(timing_loop, stops_on_noise_once_minimums_hold) {
  fake_clock clock({2.0, 2.0, 2.1});
  const stop_rule rule{5, 1000, 2.5, 1e9, 0.02};
  const timing_run run = run_timing(
      rule, 0, clock, [](int64_t) { return 0; }, stepping_wall(0.25));
  EXPECT_EQ(run.stop, stop_reason::noise);
  EXPECT_EQ(run.stats.samples, 10); // min_time (10 steps of 0.25 s) binds after min_samples
  EXPECT_LE(run.stats.rel_noise, 0.02);
}

TEST(timing_loop, stops_at_max_time_when_noise_never_settles) {
  fake_clock clock({1.0, 9.0});
  const stop_rule rule{2, 1000000, 0.0, 12.5, 1e-9};
  const timing_run run = run_timing(
      rule, 1, clock, [](int64_t) { return 0; }, stepping_wall(0.25));
  EXPECT_EQ(run.stop, stop_reason::max_time);
  EXPECT_EQ(run.stats.samples, 50);
}

TEST(timing_loop, converged_run_reports_noise_on_its_last_permitted_sample) {
  fake_clock clock({2.0});
  // 131 samples: min_time is first met on the last one, which is off the re-estimation stride.
  const stop_rule rule{2, 131, 32.75, 1e9, 0.01};
  const timing_run run = run_timing(
      rule, 0, clock, [](int64_t) { return 0; }, stepping_wall(0.25));
  EXPECT_EQ(run.stats.samples, 131);
  EXPECT_EQ(run.stop, stop_reason::noise);
}

TEST(timing_loop, callback_failure_throws_with_the_call_index) {
  fake_clock clock({1.0});
  const stop_rule rule{5, 10, 0.0, 1e9, 0.0};
  try {
    run_timing(
        rule, 2, clock, [](int64_t call_idx) { return call_idx == 4 ? 7 : 0; }, stepping_wall(0.001));
    FAIL() << "expected a failure";
  } catch (const std::runtime_error& failure) {
    EXPECT_NE(std::string(failure.what()).find("forward call 4"), std::string::npos) << failure.what();
  }
}

TEST(timing_loop, rejects_invalid_rules) {
  fake_clock clock({1.0});
  const auto ok = [](int64_t) { return 0; };
  EXPECT_THROW(run_timing(stop_rule{0, 10, 0, 1, 0.1}, 0, clock, ok), std::runtime_error);
  EXPECT_THROW(run_timing(stop_rule{10, 5, 0, 1, 0.1}, 0, clock, ok), std::runtime_error);
  EXPECT_THROW(run_timing(stop_rule{1, 5, -1, 1, 0.1}, 0, clock, ok), std::runtime_error);
  EXPECT_THROW(run_timing(stop_rule{1, 5, 0, 1, 0.1}, -1, clock, ok), std::runtime_error);
  EXPECT_THROW(run_timing(stop_rule{1, 5, 0, 1, 0.1, -0.5}, 0, clock, ok), std::runtime_error);
  EXPECT_THROW(run_timing(stop_rule{1, 5, 0, 1, 0.1, 0, -1}, 0, clock, ok), std::runtime_error);
  EXPECT_THROW(run_timing(stop_rule{1, 5, 0, 1, 0.1, 0, NAN}, 0, clock, ok), std::runtime_error);
  EXPECT_TRUE(clock.prepared.empty());
}

TEST(timing_loop, rests_after_each_paced_call_for_its_ratio_of_the_calls_wall_time) {
  // Each call takes 2 ms of wall; the rests advance the same wall. Calls 0-1 are counted warm-ups
  // (not paced: no rest), 2-3 timed warm-ups, then samples 0-4 with host-latency calls after
  // samples 0 and 4: 2 + 5 + 2 paced calls, each followed by a rest of 1.5 × 2 ms, except the
  // second timed warm-up's, which would outlast the warm-up's 6 ms (it ends at 7 ms of it).
  fake_clock clock({1.0}, true);
  double now_s = 0;
  std::vector<double> rests;
  timing_hooks hooks;
  hooks.rest = [&](double seconds) {
    rests.push_back(seconds);
    now_s += seconds;
  };
  stop_rule rule{5, 5, 0.0, 1e9, 0.0};
  rule.warmup_time_s = 0.006; // timed warm-ups at 0 and 5 ms of it (2 ms call, 3 ms rest); 7 ms ends it
  rule.rest_ratio = 1.5;
  const timing_run run = run_timing(
      rule, 2, clock,
      [&](int64_t) {
        now_s += 0.002;
        return 0;
      },
      [&] { return now_s; }, hooks);
  EXPECT_EQ(run.warmup, 4);
  EXPECT_EQ(run.times_ms.size(), 5u);
  EXPECT_EQ(run.host_ms.size(), 2u);
  ASSERT_EQ(rests.size(), 9u);
  for (size_t i = 0; i < rests.size(); ++i) EXPECT_NEAR(rests[i], i == 1 ? 0.0 : 0.003, 1e-12) << i;
  EXPECT_NEAR(run.rest_s, 0.024, 1e-12);
  const nlohmann::json doc = nlohmann::json::parse(timing_json(run));
  EXPECT_EQ(doc["rest_ratio"], 1.5);
  EXPECT_NEAR(doc["rest_s"].get<double>(), 0.024, 1e-12);
}

TEST(timing_loop, a_rest_never_carries_the_sampling_past_its_max_time) {
  // One call takes 1 s; max_time_s is 1.25 s: the first sample's rest is cut to the 0.25 s left,
  // where resting its whole ratio (1 s) would have stretched the run to 2 s.
  fake_clock clock({1.0, 9.0});
  double now_s = 0;
  timing_hooks hooks;
  hooks.rest = [&](double seconds) { now_s += seconds; };
  stop_rule rule{1, 1000, 0.0, 1.25, 0.0};
  rule.rest_ratio = 1.0;
  const timing_run run = run_timing(
      rule, 0, clock,
      [&](int64_t) {
        now_s += 1.0;
        return 0;
      },
      [&] { return now_s; }, hooks);
  EXPECT_EQ(run.stop, stop_reason::max_time);
  EXPECT_EQ(run.times_ms.size(), 1u);
  EXPECT_DOUBLE_EQ(run.rest_s, 0.25);
  EXPECT_DOUBLE_EQ(run.check.sample_clock_s, 1.25);
}

TEST(timing_loop, rests_count_toward_the_sampling_time) {
  // Samples whose noise never settles, 10 ms of wall each, until 1 s of sampling: resting as long
  // as each call took leaves room for half the samples.
  const auto samples_in_a_second = [](double rest_ratio) {
    fake_clock clock({1.0, 9.0});
    double now_s = 0;
    timing_hooks hooks;
    hooks.rest = [&](double seconds) { now_s += seconds; };
    stop_rule rule{1, 100000, 0.0, 1.0, 0.0};
    rule.rest_ratio = rest_ratio;
    const timing_run run = run_timing(
        rule, 0, clock,
        [&](int64_t) {
          now_s += 0.0078125;
          return 0;
        },
        [&] { return now_s; }, hooks);
    EXPECT_EQ(run.stop, stop_reason::max_time);
    return run.times_ms.size();
  };
  EXPECT_EQ(samples_in_a_second(0.0), 128u);
  EXPECT_EQ(samples_in_a_second(1.0), 64u);
}

TEST(timing_loop, host_latency_every_fourth_sample_in_its_own_window) {
  fake_clock clock({1.0}, true);
  recording_marks marks;
  std::vector<int64_t> calls;
  const timing_run run = run_timing(stop_rule{5, 5, 0.0, 1e9, 0.0}, 1, clock,
                                    [&](int64_t call_idx) {
                                      calls.push_back(call_idx);
                                      return 0;
                                    },
                                    stepping_wall(0.001), {&marks, {}});
  EXPECT_EQ(run.times_ms.size(), 5u);
  EXPECT_EQ(run.host_ms, (std::vector<double>{100.0, 100.0}));      // after samples 0 and 4
  EXPECT_EQ(calls, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7})); // one index per call, host calls included
  EXPECT_EQ(marks.windows,
            (std::vector<std::string>{"warmup 0", "sample 0", "latency 0", "sample 1", "sample 2", "sample 3", "sample 4",
                                      "latency 4"}));
  EXPECT_FALSE(marks.open);
  EXPECT_EQ(run.held, 5);
  EXPECT_EQ(std::count_if(run.sample_sm_mhz.begin(), run.sample_sm_mhz.end(), [](unsigned mhz) { return mhz != 0; }), 5);
}

TEST(timing_loop, the_after_call_hook_runs_outside_every_window) {
  fake_clock clock({1.0}, true);
  recording_marks marks;
  std::vector<int64_t> after;
  timing_hooks hooks{&marks, [&](int64_t call_idx) {
                       EXPECT_FALSE(marks.open) << call_idx;
                       after.push_back(call_idx);
                       return 0;
                     }};
  run_timing(
      stop_rule{2, 2, 0.0, 1e9, 0.0}, 1, clock, [](int64_t) { return 0; }, stepping_wall(0.001), hooks);
  EXPECT_EQ(after, (std::vector<int64_t>{0, 1, 2, 3})); // warm-up, sample 0, its latency call, sample 1
  hooks.after_call = [](int64_t call_idx) { return call_idx == 2 ? 1 : 0; };
  EXPECT_THROW(run_timing(
                   stop_rule{2, 2, 0.0, 1e9, 0.0}, 1, clock, [](int64_t) { return 0; }, stepping_wall(0.001), hooks),
               std::runtime_error);
}

TEST(timing_loop, throttled_samples_are_discarded_and_counted) {
  fake_clock clock({1.0, 50.0});
  clock.throttled_at = {1, 3, 5}; // the 50 ms ones
  const timing_run run = run_timing(
      stop_rule{4, 4, 0.0, 1e9, 0.0}, 0, clock, [](int64_t) { return 0; }, stepping_wall(0.001));
  EXPECT_EQ(run.times_ms, (std::vector<double>{1, 1, 1, 1}));
  EXPECT_EQ(run.throttled_ms, (std::vector<double>{50, 50, 50}));
  EXPECT_FALSE(run.all_throttled);
  EXPECT_DOUBLE_EQ(run.stats.median_ms, 1.0);
  const nlohmann::json doc = nlohmann::json::parse(timing_json(run));
  EXPECT_EQ(doc["throttled_samples"], 3);
  EXPECT_EQ(doc["method"], "fake_method");
  EXPECT_EQ(doc["sm_clock_mhz"], 1980.0);
}

TEST(timing_loop, a_run_that_only_throttled_reports_its_samples_flagged) {
  fake_clock clock({3.0});
  clock.throttled_at = {0, 1, 2, 3, 4, 5, 6, 7};
  const timing_run run = run_timing(
      stop_rule{2, 8, 0.0, 0.004, 0.0}, 0, clock, [](int64_t) { return 0; }, stepping_wall(0.001));
  EXPECT_TRUE(run.all_throttled);
  EXPECT_EQ(run.stop, stop_reason::max_time);
  EXPECT_DOUBLE_EQ(run.stats.median_ms, 3.0);
  const nlohmann::json doc = nlohmann::json::parse(timing_json(run));
  EXPECT_TRUE(doc["all_throttled"].get<bool>());
  EXPECT_TRUE(doc["dropped_idx"].empty()); // every sample counts
}

TEST(timing_loop, each_samples_clock_state_is_recorded_by_its_index) {
  fake_clock clock({1.0, 1.0, 1.2});
  clock.capped_at = {2, 5, 8, 11}; // the 1.2 ms ones
  clock.throttled_at = {4};
  const timing_run run = run_timing(
      stop_rule{6, 12, 0.0, 1e9, 0.0}, 0, clock, [](int64_t) { return 0; }, stepping_wall(0.001));
  EXPECT_EQ(run.power_capped, 4);
  EXPECT_EQ(run.times_ms.size(), 12u); // 13 taken, the throttled one left out; capped ones count
  const nlohmann::json doc = nlohmann::json::parse(timing_json(run));
  EXPECT_EQ(doc["dropped_idx"], (std::vector<int64_t>{4}));
  EXPECT_EQ(doc["power_capped_idx"], (std::vector<int64_t>{2, 5, 8, 11}));
  EXPECT_EQ(doc["sample_sm_mhz"].size(), 13u);
  EXPECT_EQ(doc["sample_sm_mhz"][2], 1965);
  EXPECT_EQ(doc["sample_sm_mhz"][3], 1980);
}

TEST(timing_json, has_the_protocol_fields) {
  fake_clock clock({1.0, 2.0, 3.0});
  const timing_run run = run_timing(stop_rule{3, 3, 0, 1e9, 0}, 2, clock, [](int64_t) { return 0; });
  const nlohmann::json doc = nlohmann::json::parse(timing_json(run));
  EXPECT_EQ(doc["device"], "cpu");
  EXPECT_EQ(doc["clock"], "fake");
  EXPECT_EQ(doc["samples"], 3);
  EXPECT_EQ(doc["warmup"], 2);
  EXPECT_EQ(doc["median_ms"], 2.0);
  EXPECT_EQ(doc["p10_ms"], 1.2);
  EXPECT_EQ(doc["max_ms"], 3.0);
  EXPECT_EQ(doc["stop"], "max_samples");
  EXPECT_EQ(doc["times_ms"], (std::vector<double>{1, 2, 3}));
  for (const char* key : {"p90_ms", "mean_ms", "min_ms", "rel_noise", "method", "held_samples", "floor_ms", "host_median_ms",
                          "throttled_samples", "clock_monitor", "sm_clock_mhz", "host_ms"})
    EXPECT_TRUE(doc.contains(key)) << key;
  EXPECT_TRUE(doc["host_median_ms"].is_null()); // no host latency on this clock
  EXPECT_EQ(doc["floor_ms"], 0.001);

  const timing_run single = run_timing(stop_rule{1, 1, 0, 1e9, 0}, 0, clock, [](int64_t) { return 0; });
  EXPECT_TRUE(nlohmann::json::parse(timing_json(single))["rel_noise"].is_null());
}

TEST(timing_json, clock_check_spans_the_sampling_loop_on_both_clocks) {
  fake_clock clock({1.0});
  timing_hooks hooks;
  hooks.kernel_clock = stepping_wall(5.0); // read twice: a span of 5 s
  // Wall reads: 0.25 before sample 0, one after each of 4 samples, one more at the stop: 1.25 s.
  const timing_run run = run_timing(
      stop_rule{4, 4, 0.0, 1e9, 0.0}, 1, clock, [](int64_t) { return 0; }, stepping_wall(0.25), hooks);
  const nlohmann::json check = nlohmann::json::parse(timing_json(run))["clock_check"];
  EXPECT_DOUBLE_EQ(check["sample_clock_s"].get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(check["kernel_clock_s"].get<double>(), 5.0); // a sample clock running 4x slow
  EXPECT_EQ(check["kernel_read"], kernel_clock_source());

  hooks.kernel_clock = nullptr;
  const timing_run unchecked = run_timing(
      stop_rule{1, 1, 0.0, 1e9, 0.0}, 0, clock, [](int64_t) { return 0; }, stepping_wall(0.25), hooks);
  EXPECT_TRUE(nlohmann::json::parse(timing_json(unchecked))["clock_check"]["kernel_clock_s"].is_null());
}

TEST(kernel_clock, reads_the_clock_steady_clock_reads) {
  // Both are CLOCK_MONOTONIC: a kernel reading between two steady readings lies between them.
  for (int rep = 0; rep < 100; ++rep) {
    const double before_s = steady_seconds();
    const double kernel_s = kernel_monotonic_seconds();
    const double after_s = steady_seconds();
    ASSERT_TRUE(std::isfinite(kernel_s));
    EXPECT_LE(before_s, kernel_s + 1e-9);
    EXPECT_LE(kernel_s, after_s + 1e-9);
  }
}

TEST(clock_monitor, thermal_and_brake_reasons_throttle_the_power_cap_does_not) {
  EXPECT_FALSE(classify_reasons(1980, 0x0).throttled);
  EXPECT_FALSE(classify_reasons(1980, 0x1).throttled); // idle
  const clock_reading capped = classify_reasons(1755, 0x4);
  EXPECT_FALSE(capped.throttled);
  EXPECT_TRUE(capped.power_capped);
  EXPECT_EQ(capped.sm_mhz, 1755u);
  for (unsigned long long bit : {0x8ull, 0x20ull, 0x40ull, 0x80ull}) EXPECT_TRUE(classify_reasons(900, bit).throttled) << bit;
}
