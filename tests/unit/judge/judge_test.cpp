// The orchestrator's judgement of a candidate run, without real processes: the runner's files
// are written here as a candidate would leave them.
#include "judge_fixture.hpp"

TEST_F(judge_fixture, matching_outputs_pass_with_speedup_from_medians) {
  candidate_outputs({1, 2, 3});
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::passed) << j.result.reason;
  ASSERT_TRUE(j.speedup.has_value());
  EXPECT_DOUBLE_EQ(*j.speedup, 4.0);
  ASSERT_EQ(j.measurements.size(), 2u);
  EXPECT_EQ(j.measurements[0].role, "baseline");
  EXPECT_EQ(j.measurements[1].role, "candidate");
}

TEST_F(judge_fixture, a_timing_with_null_fields_is_judged_not_thrown) {
  // What the runtime writes for a call that synchronised inside the stream hold: one sample of zero.
  m_context.device = "cuda";
  candidate_outputs({1, 2, 3});
  candidate_timing({{"clock", "cuda_event"},
                    {"method", "events"},
                    {"median_ms", 0.0},
                    {"p10_ms", 0.0},
                    {"p90_ms", 0.0},
                    {"samples", 1},
                    {"rel_noise", nullptr},
                    {"host_median_ms", nullptr}});
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::passed) << j.result.reason;
  EXPECT_FALSE(j.speedup.has_value()); // no speedup from a zero time
  ASSERT_EQ(j.measurements.size(), 2u);
  EXPECT_TRUE(std::isinf(j.measurements[1].rel_noise));
  EXPECT_FALSE(j.measurements[1].host_median_ms.has_value());
}

TEST_F(judge_fixture, a_timing_keeps_the_clock_state_its_samples_ran_in) {
  candidate_outputs({1, 2, 3});
  candidate_timing({{"clock", "cupti"},
                    {"median_ms", 0.25},
                    {"p10_ms", 0.24},
                    {"p90_ms", 0.26},
                    {"samples", 426},
                    {"rel_noise", 0.001},
                    {"throttled_samples", 3},
                    {"power_capped_samples", 358},
                    {"sm_clock_mhz", 1965.0}});
  const auto j = judge();
  ASSERT_EQ(j.measurements.size(), 2u);
  EXPECT_EQ(j.measurements[1].sm_clock_mhz, 1965.0);
  EXPECT_EQ(j.measurements[1].power_capped, 358);
  EXPECT_EQ(j.measurements[1].throttled, 3);
  EXPECT_FALSE(j.measurements[0].sm_clock_mhz.has_value()); // the baseline's record read no clock (as on cpu)
  EXPECT_EQ(j.measurements[0].power_capped, 0);
}

TEST_F(judge_fixture, wrong_outputs_are_incorrect_and_name_the_case) {
  candidate_outputs({1, 2, 4});
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::incorrect);
  EXPECT_NE(j.result.reason.find("shape n3, input set 0"), std::string::npos) << j.result.reason;
  EXPECT_FALSE(j.speedup.has_value());
}

TEST_F(judge_fixture, a_done_event_does_not_beat_a_missing_output) {
  const auto j = judge(); // no outputs written at all
  EXPECT_EQ(j.result.v, verdict::incorrect);
  EXPECT_NE(j.result.reason.find("no readable output"), std::string::npos);
}

TEST_F(judge_fixture, import_failure_is_compile_error) {
  m_run.events.done = false;
  m_run.events.error =
      nlohmann::json{{"event", "error"}, {"phase", "load"}, {"type", "SyntaxError"}, {"message", "invalid syntax\nmore"}};
  m_run.process.exit_code = 1;
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::compile_error);
  EXPECT_EQ(j.result.reason, "import failed: SyntaxError: invalid syntax");
}

TEST_F(judge_fixture, signal_without_error_event_is_runtime_error_naming_the_signal) {
  m_run.events.done = false;
  m_run.events.last_event = "weights";
  m_run.process.end = sandbox::process_end::signaled;
  m_run.process.signal = 11;
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::runtime_error);
  EXPECT_NE(j.result.reason.find("SIGSEGV"), std::string::npos) << j.result.reason;
  EXPECT_NE(j.result.reason.find("after event 'weights'"), std::string::npos) << j.result.reason;
}

TEST_F(judge_fixture, clean_exit_without_done_is_not_success) {
  m_run.events.done = false;
  m_run.events.last_event = "case";
  candidate_outputs({1, 2, 3});
  EXPECT_EQ(judge().result.v, verdict::runtime_error);
}

TEST_F(judge_fixture, wall_clock_overrun_is_timeout) {
  m_run.events.done = false;
  m_run.process.end = sandbox::process_end::timed_out;
  m_run.process.wall_s = 30;
  EXPECT_EQ(judge().result.v, verdict::timeout);
}

TEST_F(judge_fixture, mutated_inputs_are_rejected_and_the_base_verdict_is_kept) {
  candidate_outputs({1, 2, 3});
  m_run.events.cases.push_back({{"event", "case"}, {"shape_idx", 0}, {"seed_idx", 1}, {"inputs_mutated", true}});
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected); // S7: the reference does not work in place
  EXPECT_NE(j.result.reason.find("(S7)"), std::string::npos) << j.result.reason;
  EXPECT_NE(j.result.reason.find("without the guard: incorrect"), std::string::npos) << j.result.reason;
}

TEST_F(judge_fixture, a_rewritten_timing_file_is_h3_and_the_channel_record_is_what_counts) {
  candidate_outputs({1, 2, 3});
  write_json_file(eval() / "timing/0.json", timing_json(0.02)); // after the runtime handed 0.5 ms over
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected);
  EXPECT_NE(evidence_of(j, "H3").find("timing/0.json differs from the record the runtime handed over"), std::string::npos)
      << evidence_of(j, "H3");
  ASSERT_TRUE(j.speedup.has_value());
  EXPECT_DOUBLE_EQ(*j.speedup, 4.0);
}

TEST_F(judge_fixture, an_emptied_capture_index_is_h3_and_the_channels_captures_are_still_checked) {
  candidate_outputs({1, 2, 3}, {0, 0, 0}); // a timed call that skipped its work
  write_json_file(eval() / "outputs/0/timed.json", nlohmann::json::array());
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected);
  EXPECT_NE(evidence_of(j, "H3").find("outputs/0/timed.json differs from the capture index"), std::string::npos)
      << evidence_of(j, "H3");
  EXPECT_TRUE(has_finding(j, "T7"));
}

TEST_F(judge_fixture, a_capture_rewritten_after_the_runner_wrote_it_is_h3) {
  candidate_outputs({1, 2, 3}, {0, 0, 0}); // zeros when timed...
  auto index = m_run.events.timed[0]["captures"];
  index[0]["digest"] = arbiter::judge::detail::file_digest(eval() / "outputs/0/timed/0.arbb");
  write_json_file(eval() / "outputs/0/timed.json", index);
  m_run.events.timed[0]["captures"] = index;
  EXPECT_TRUE(has_finding(judge(), "T7"));
  write_bundle(eval() / "outputs/0/timed/0.arbb", {1, 2, 3}); // ...and the right values written afterwards
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected);
  EXPECT_FALSE(has_finding(j, "T7"));
  EXPECT_NE(evidence_of(j, "H3").find("outputs/0/timed/0.arbb was rewritten after the runner wrote it"), std::string::npos)
      << evidence_of(j, "H3");
}

TEST_F(judge_fixture, the_channel_needs_one_record_and_one_capture_index_per_timed_shape) {
  candidate_outputs({1, 2, 3});
  EXPECT_EQ(judge().result.v, verdict::passed);
  m_run.events.timed[0].erase("captures");
  EXPECT_NE(evidence_of(judge(), "H3").find("shape n3 was timed but no capture index came over the channel"), std::string::npos);
  candidate_outputs({1, 2, 3});
  m_run.events.timings.push_back({{"event", "timing"}, {"shape_idx", 0}, {"record", timing_json(0.02)}});
  EXPECT_NE(evidence_of(judge(), "H3").find("2 timing records for shape n3 on the channel"), std::string::npos);
  candidate_outputs({1, 2, 3});
  m_run.events.timings = nlohmann::json::array(); // a file the runtime never handed over
  EXPECT_NE(evidence_of(judge(), "H3").find("timing/0.json has no record from the runtime"), std::string::npos);
  m_run.events.done = false; // a killed run may stop between the two: not evidence
  m_run.process.end = sandbox::process_end::timed_out;
  EXPECT_FALSE(has_finding(judge(), "H3"));
}

namespace {

nlohmann::json probe_window(const char* label, int kernels, std::uint64_t span_ns, int off_stream = 0, int index = 0) {
  return {{"label", label},
          {"group", 0},
          {"index", index},
          {"kernels", kernels},
          {"launches", kernels},
          {"span_ns", span_ns},
          {"busy_ns", span_ns},
          {"streams", {7}},
          {"harness_stream", 7},
          {"off_stream_kernels", off_stream},
          {"after_end_kernels", 0},
          {"after_end_max_ns", 0},
          {"threads", 4}};
}

void write_probe(const fs::path& file, const nlohmann::json& windows, std::uint64_t graph_launches = 0,
                 const nlohmann::json& kernels = nlohmann::json::array()) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << nlohmann::json{
      {"version", 1},
      {"contexts", 1},
      {"modules_loaded", 2},
      {"graphs", {{"created", 0}, {"instantiated", 0}, {"launched", graph_launches}, {"captures", 0}}},
      {"totals", {{"kernels", 9}, {"copies", 0}, {"memsets", 0}, {"dropped_records", 0}}},
      {"threads_max", 4},
      {"windows", windows},
      {"kernels", kernels}}.dump();
}

} // namespace

TEST_F(judge_fixture, probe_evidence_is_summarised_and_a_clean_run_passes) {
  candidate_outputs({1, 2, 3}); // the runtime reported 0.5 ms
  m_run.probe = "enabled";
  write_probe(eval() / "outputs/probe.json",
              {probe_window("case", 1, 400'000), probe_window("sample", 1, 480'000), probe_window("sample", 1, 490'000),
               probe_window("sample", 1, 500'000)});
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::passed) << j.result.reason;
  const auto& shape = j.details["probe"]["shapes"][0];
  EXPECT_DOUBLE_EQ(shape["span_median_ms"].get<double>(), 0.49);
  EXPECT_DOUBLE_EQ(shape["reported_median_ms"].get<double>(), 0.5);
  EXPECT_EQ(shape["timer_misses_work"], false);
  EXPECT_EQ(shape["labels"]["sample"]["windows"], 3);
  EXPECT_EQ(j.details["probe"]["modules_loaded"], 2);
}

const store::measurement_record& measurement(const arbiter::judge::judgement& j, const std::string& role) {
  const auto it = std::find_if(j.measurements.begin(), j.measurements.end(), [&](const auto& m) { return m.role == role; });
  EXPECT_NE(it, j.measurements.end()) << role;
  return *it;
}

TEST_F(judge_fixture, device_time_is_the_probes_span_when_both_sides_were_probed) {
  candidate_outputs({1, 2, 3}); // events: reference 2.0 ms, candidate 0.5 ms
  m_run.probe = "enabled";
  const auto candidate_windows = nlohmann::json{probe_window("case", 1, 400'000), probe_window("sample", 1, 300'000),
                                                probe_window("sample", 1, 400'000), probe_window("sample", 1, 500'000)};
  write_probe(eval() / "outputs/probe.json", candidate_windows);
  // Without the reference's evidence both keep their event times: one method per speedup.
  auto j = judge();
  EXPECT_EQ(measurement(j, "candidate").method, "steady_clock");
  EXPECT_DOUBLE_EQ(*j.speedup, 4.0);
  write_probe(ref() / "probe.json", {probe_window("sample", 1, 1'600'000), probe_window("sample", 1, 1'600'000)});
  j = judge();
  EXPECT_EQ(j.result.v, verdict::passed) << j.result.reason;
  const auto& candidate = measurement(j, "candidate");
  EXPECT_EQ(candidate.method, "cupti_span");
  EXPECT_DOUBLE_EQ(candidate.median_ms, 0.4);
  EXPECT_NEAR(candidate.p10_ms, 0.32, 1e-12);
  EXPECT_NEAR(candidate.p90_ms, 0.48, 1e-12);
  EXPECT_DOUBLE_EQ(measurement(j, "baseline").median_ms, 1.6);
  EXPECT_DOUBLE_EQ(*j.speedup, 4.0);
  EXPECT_DOUBLE_EQ(j.details["probe"]["shapes"][0]["reported_median_ms"].get<double>(), 0.5); // events kept beside
}

TEST_F(judge_fixture, device_time_leaves_out_the_samples_the_runtime_dropped) {
  candidate_outputs({1, 2, 3});
  m_run.probe = "enabled";
  write_probe(ref() / "probe.json", nlohmann::json::array({probe_window("sample", 1, 2'000'000)}));
  // Five samples; the runtime left out 1 and 3 (throttled, 0.5% slower).
  auto windows = nlohmann::json::array();
  for (int i = 0; i < 5; ++i) windows.push_back(probe_window("sample", 1, i % 2 ? 301'500 : 300'000, 0, i));
  write_probe(eval() / "outputs/probe.json", windows);
  auto record = timing_json(0.3);
  record["dropped_idx"] = {3, 1};
  candidate_timing(record);
  auto j = judge();
  EXPECT_EQ(j.result.v, verdict::passed) << j.result.reason;
  EXPECT_DOUBLE_EQ(measurement(j, "candidate").median_ms, 0.3);
  EXPECT_FALSE(j.details.contains("dropped_ignored"));
  // A list that lowers the median by 10% is not believed: every span counts, and it is noted.
  for (int i = 0; i < 5; ++i) windows[i]["span_ns"] = i == 0 ? 300'000 : 330'000;
  write_probe(eval() / "outputs/probe.json", windows);
  record["dropped_idx"] = {1, 2, 3, 4};
  candidate_timing(record);
  j = judge();
  EXPECT_DOUBLE_EQ(measurement(j, "candidate").median_ms, 0.33);
  EXPECT_EQ(arbiter::judge::details_json(j)["dropped_ignored"],
            nlohmann::json::parse(R"([{"shape": "n3", "role": "candidate"}])"));
}

TEST_F(judge_fixture, a_tiny_kernels_device_time_resolves_inside_the_timers_step) {
  candidate_outputs({1, 2, 3});
  m_run.probe = "enabled";
  // A 1.25 µs kernel on a timer that steps 32 ns: six samples read 1248 ns, four read 1280 ns.
  auto windows = nlohmann::json::array({probe_window("case", 1, 1280)});
  for (int i = 0; i < 10; ++i) windows.push_back(probe_window("sample", 1, i < 6 ? 1248 : 1280));
  write_probe(ref() / "probe.json", nlohmann::json::array({probe_window("sample", 1, 2'000'000)}));
  // Without kernels listed one by one the step is unknown: the plain median, one of the readings.
  write_probe(eval() / "outputs/probe.json", windows);
  outside_batch({1, 2, 3}, 1248e-6);
  const auto plain = judge();
  EXPECT_EQ(plain.result.v, verdict::passed) << plain.result.reason;
  EXPECT_DOUBLE_EQ(measurement(plain, "candidate").median_ms, 1248e-6);
  // The listed kernels: the tiny one's two readings, then sixteen short holds of other lengths.
  auto kernels =
      nlohmann::json::array({nlohmann::json{{"name", "add"}, {"start_ns", 10'016}, {"end_ns", 11'264}, {"window", 1}},
                             nlohmann::json{{"name", "add"}, {"start_ns", 20'000}, {"end_ns", 21'280}, {"window", 2}}});
  for (int i = 0; i < 16; ++i)
    kernels.push_back({{"name", "arbiter_hold"}, {"start_ns", 30'000}, {"end_ns", 30'000 + 32 * (100 + 7 * i)}, {"window", -1}});
  // A long hold drifts off the step in CUPTI's mapping onto the host's clock: it reads no step.
  kernels.push_back({{"name", "arbiter_hold"}, {"start_ns", 50'000}, {"end_ns", 90'003}, {"window", -1}});
  // Two distinct durations could share any factor by chance: no step is assumed from them.
  write_probe(eval() / "outputs/probe.json", windows, 0, nlohmann::json::array({kernels[0], kernels[1]}));
  const auto few = judge();
  EXPECT_EQ(few.details["probe"]["timer_step_ns"], 0);
  EXPECT_DOUBLE_EQ(measurement(few, "candidate").median_ms, 1248e-6);
  // Eighteen give the step (their greatest common divisor, 32 ns), and the median lies inside
  // the 1248 ns step: 1232 + 32 × (5 − 0) / 6.
  write_probe(eval() / "outputs/probe.json", windows, 0, kernels);
  const auto j = judge();
  EXPECT_EQ(j.details["probe"]["timer_step_ns"], 32);
  EXPECT_NEAR(measurement(j, "candidate").median_ms, (1232 + 32.0 * 5 / 6) * 1e-6, 1e-15);
  EXPECT_NEAR(j.details["probe"]["shapes"][0]["span_median_ms"].get<double>(), (1232 + 32.0 * 5 / 6) * 1e-6, 1e-15);
  // The timer mapped onto the host's clock: every listed duration and span within a nanosecond of
  // the 32 ns steps, no common divisor left. The step is read within that nanosecond, and the
  // median is the one on the steps.
  for (std::size_t i = 0; i < kernels.size(); ++i)
    kernels[i]["end_ns"] = kernels[i]["end_ns"].get<int>() + (i % 3 == 0 ? 1 : -1) * static_cast<int>(i % 2);
  for (std::size_t i = 1; i < windows.size(); ++i)
    windows[i]["span_ns"] = windows[i]["span_ns"].get<int>() + static_cast<int>(i % 3) - 1;
  write_probe(eval() / "outputs/probe.json", windows, 0, kernels);
  const auto off = judge();
  EXPECT_EQ(off.details["probe"]["timer_step_ns"], 32);
  EXPECT_NEAR(measurement(off, "candidate").median_ms, (1232 + 32.0 * 5 / 6) * 1e-6, 1e-15);
  // A step the durations keep to but a span does not (3 ns off) is not the spans' clock: plain.
  windows[1]["span_ns"] = windows[1]["span_ns"].get<int>() + 3;
  write_probe(eval() / "outputs/probe.json", windows, 0, kernels);
  EXPECT_DOUBLE_EQ(measurement(judge(), "candidate").median_ms, 1250e-6);
}

TEST_F(judge_fixture, probe_side_streams_reject_and_a_short_timer_flags) {
  candidate_outputs({1, 2, 3});
  m_run.probe = "enabled";
  write_probe(eval() / "outputs/probe.json", {probe_window("case", 1, 400'000), probe_window("sample", 2, 2'000'000, 1)});
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected);
  EXPECT_TRUE(has_finding(j, "T1"));
  EXPECT_TRUE(has_finding(j, "T4")); // 2 ms on the GPU, 0.5 ms reported
}

TEST_F(judge_fixture, copies_off_the_harness_stream_or_after_the_sample_escape_the_timer_as_kernels_do) {
  candidate_outputs({1, 2, 3});
  m_run.probe = "enabled";
  auto side_copy = probe_window("sample", 1, 480'000);
  side_copy["copies"] = 1;
  side_copy["off_stream_transfers"] = 1;
  write_probe(eval() / "outputs/probe.json", {probe_window("case", 1, 400'000), side_copy});
  auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected);
  EXPECT_TRUE(has_finding(j, "T1"));
  auto late_memset = probe_window("sample", 1, 480'000);
  late_memset["memsets"] = 1;
  late_memset["after_end_transfers"] = 1;
  late_memset["after_end_max_ns"] = 50'000;
  write_probe(eval() / "outputs/probe.json", {probe_window("case", 1, 400'000), late_memset});
  j = judge();
  EXPECT_TRUE(has_finding(j, "T1")) << j.result.reason;
}

TEST_F(judge_fixture, timed_calls_without_kernels_are_flagged) {
  candidate_outputs({1, 2, 3});
  m_run.probe = "enabled";
  write_probe(eval() / "outputs/probe.json", {probe_window("case", 3, 400'000), probe_window("sample", 0, 0)});
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected);
  EXPECT_TRUE(has_finding(j, "T5"));
}

TEST_F(judge_fixture, a_held_timer_far_above_the_span_is_T4_and_the_larger_clock_is_the_device_time) {
  candidate_outputs({1, 2, 3}); // the runtime's held events: 0.5 ms
  m_run.probe = "enabled";
  write_probe(ref() / "probe.json", {probe_window("sample", 1, 1'600'000), probe_window("sample", 1, 1'600'000)});
  // The probe was let see a 10 µs kernel of each call; the real work ran unrecorded.
  write_probe(eval() / "outputs/probe.json",
              {probe_window("case", 1, 10'000), probe_window("sample", 1, 10'000), probe_window("sample", 1, 10'000)});
  auto record = timing_json(0.5);
  record["held_samples"] = 10;
  candidate_timing(record);
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected);
  EXPECT_NE(evidence_of(j, "T4").find("the timer reports 0.5000 ms, the probe saw 0.0100 ms"), std::string::npos)
      << evidence_of(j, "T4");
  EXPECT_DOUBLE_EQ(measurement(j, "candidate").median_ms, 0.5); // never the smaller of the two
  EXPECT_DOUBLE_EQ(measurement(j, "baseline").median_ms, 1.6);
  EXPECT_EQ(arbiter::judge::details_json(j)["clocks_disagree"][0]["role"], "candidate");
  EXPECT_EQ(j.details["probe"]["shapes"][0]["probe_misses_work"], true);
  // Without the hold the events hold the host's launches: a long timer says nothing.
  record.erase("held_samples");
  candidate_timing(record);
  const auto unheld = judge();
  // Not the probe's rule then, but the outside clock saw the work at 0.5 ms a call.
  EXPECT_NE(evidence_of(unheld, "T4").find("orchestrator's clock saw 0.5 ms per call"), std::string::npos)
      << evidence_of(unheld, "T4");
  EXPECT_DOUBLE_EQ(measurement(unheld, "candidate").median_ms, 0.01);
}

TEST_F(judge_fixture, sample_windows_must_match_the_samples_the_runtime_timed) {
  candidate_outputs({1, 2, 3});
  m_run.probe = "enabled";
  auto record = timing_json(0.5);
  record["sample_sm_mhz"] = {1980, 1980, 1980}; // three samples timed
  candidate_timing(record);
  auto windows = nlohmann::json::array({probe_window("case", 1, 400'000)});
  for (int i = 0; i < 3; ++i) windows.push_back(probe_window("sample", 1, 490'000, 0, i));
  write_probe(eval() / "outputs/probe.json", windows);
  auto j = judge();
  EXPECT_EQ(j.result.v, verdict::passed) << j.result.reason;
  EXPECT_EQ(j.details["probe"]["shapes"][0]["expected_samples"], 3);
  windows[3]["index"] = 0; // sample 2 never had its window, sample 0 had two
  write_probe(eval() / "outputs/probe.json", windows);
  j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected);
  EXPECT_NE(evidence_of(j, "T4").find(
                "the runtime timed 3 samples, the probe kept 3 sample windows (1 indices missing, 1 out of range or repeated)"),
            std::string::npos)
      << evidence_of(j, "T4");
}

TEST_F(judge_fixture, launches_without_kernel_records_and_memset_only_calls_are_found) {
  candidate_outputs({1, 2, 3});
  m_run.probe = "enabled";
  write_probe(ref() / "probe.json", {probe_window("sample", 1, 1'600'000), probe_window("sample", 1, 1'600'000)});
  // Kernel activity switched off for the call's work, a memset left on record.
  auto memset_only = probe_window("sample", 0, 2'000);
  memset_only["memsets"] = 1;
  memset_only["api_kernel_launches"] = 3;
  memset_only["api_transfers"] = 1;
  const auto honest = probe_window("sample", 1, 490'000);
  write_probe(eval() / "outputs/probe.json", {probe_window("case", 1, 400'000), memset_only, memset_only, honest});
  auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected);
  EXPECT_NE(evidence_of(j, "H3").find("in 2 of 3 timed calls the driver returned 6 kernel launches"), std::string::npos)
      << evidence_of(j, "H3");
  EXPECT_NE(evidence_of(j, "T5").find("2 of 3 timed calls ran copies or memsets and no kernel"), std::string::npos)
      << evidence_of(j, "T5");
  // A capture begun in the window: its launches ran nothing, and the count proves nothing.
  memset_only["captures"] = 1;
  write_probe(eval() / "outputs/probe.json", {probe_window("case", 1, 400'000), memset_only, memset_only, honest});
  EXPECT_FALSE(has_finding(judge(), "H3"));
}

TEST_F(judge_fixture, markers_without_the_token_are_H3) {
  candidate_outputs({1, 2, 3});
  m_run.probe = "enabled";
  write_probe(eval() / "outputs/probe.json", {probe_window("case", 1, 400'000), probe_window("sample", 1, 490'000)});
  const fs::path file = eval() / "outputs/probe.json";
  auto doc = nlohmann::json::parse(std::ifstream(file));
  doc["witness"] = {{"checks", 4},
                    {"callbacks_disabled", 0},
                    {"notes", nlohmann::json::array()},
                    {"forged_markers", 40000},
                    {"refused_claims", 0}};
  std::ofstream(file) << doc.dump();
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected);
  EXPECT_NE(evidence_of(j, "H3").find("40000 probe markers without the run's token"), std::string::npos) << evidence_of(j, "H3");
}

TEST_F(judge_fixture, an_unavailable_probe_is_said_and_a_finished_run_without_evidence_is_rejected) {
  candidate_outputs({1, 2, 3});
  m_run.probe = "unavailable: libcupti.so.13: cannot open shared object file";
  auto j = judge();
  EXPECT_EQ(j.result.v, verdict::passed);
  EXPECT_EQ(j.details["probe"], "unavailable: libcupti.so.13: cannot open shared object file");
  m_run.probe = "enabled"; // loaded, the run finished, yet the exit writer never ran (os._exit)
  j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected);
  EXPECT_EQ(j.details["probe"], "missing: no probe.json");
  EXPECT_TRUE(has_finding(j, "H2"));
}

TEST_F(judge_fixture, evidence_counts_only_with_this_runs_signature) {
  candidate_outputs({1, 2, 3});
  m_run.probe = "enabled";
  m_run.probe_key = probe::new_evidence_key();
  const fs::path file = eval() / "outputs/probe.json";
  write_probe(file, {probe_window("case", 1, 400'000), probe_window("sample", 1, 480'000)});
  auto j = judge(); // a probe.json without its .mac: what a candidate would write
  EXPECT_EQ(j.result.v, verdict::rejected);
  EXPECT_TRUE(has_finding(j, "H3"));
  EXPECT_NE(j.details["probe"].get<std::string>().find("unsigned"), std::string::npos) << j.details["probe"];
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream(probe::mac_path(file)) << probe::evidence_mac(probe::new_evidence_key(), text) << '\n';
  j = judge(); // signed under another key
  EXPECT_EQ(j.result.v, verdict::rejected);
  EXPECT_NE(j.details["probe"].get<std::string>().find("does not match"), std::string::npos) << j.details["probe"];
  std::ofstream(probe::mac_path(file)) << probe::evidence_mac(m_run.probe_key, text) << '\n';
  j = judge();
  EXPECT_EQ(j.result.v, verdict::passed) << j.result.reason;
  EXPECT_TRUE(j.details["probe"].is_object());
}

TEST(events, a_torn_last_frame_is_left_out_and_a_spliced_line_is_a_fault) {
  const fs::path file = fs::temp_directory_path() / "arbiter_events_test.jsonl";
  std::ofstream(file) << arbiter::frames_from_lines(
      "{\"event\": \"start\", \"mode\": \"candidate\"}\n{\"event\": \"loaded\"}\n{\"event\": \"ca");
  const auto events = arbiter::judge::read_events(file);
  EXPECT_TRUE(events.started);
  EXPECT_FALSE(events.done);
  EXPECT_EQ(events.last_event, "loaded");
  EXPECT_TRUE(events.torn);
  EXPECT_FALSE(events.fault);
  // A forged event written beside the runner's frames, as a plain line: the rest is not read.
  std::ofstream(file) << arbiter::encode_frame(0, {{"event", "start"}}) << "{\"event\": \"done\"}\n"
                      << arbiter::encode_frame(1, {{"event", "done"}});
  const auto forged = arbiter::judge::read_events(file);
  ASSERT_TRUE(forged.fault);
  EXPECT_FALSE(forged.done);
  fs::remove(file);
}

TEST_F(judge_fixture, a_channel_record_whose_member_has_another_type_is_a_forged_channel_not_a_crash) {
  candidate_outputs({1, 2, 3});
  m_run.events.cases.push_back({{"event", "case"}, {"shape_idx", 0}, {"seed_idx", 1}, {"inputs_mutated", "no"}});
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected) << j.result.reason;
  EXPECT_TRUE(has_finding(j, "H3")) << j.result.reason;
  EXPECT_NE(j.result.reason.find("a record the judge cannot read"), std::string::npos) << j.result.reason;
}

// The record's labels reach the leaderboard's account of how it ranks ("ranked by … CUPTI kernel
// spans"): a record naming a clock or method the runtime does not write on the device is forged.
TEST_F(judge_fixture, a_record_labelled_with_a_method_the_runtime_does_not_write_is_a_forged_channel) {
  for (const auto& [clock, method] : std::vector<std::pair<std::string, std::string>>{
           {"steady_clock", "cupti_span"}, {"cuda_event", "held_events"}, {"steady_clock", ""}}) {
    candidate_outputs({1, 2, 3});
    auto record = timing_json(0.5);
    record["clock"] = clock;
    record["method"] = method;
    candidate_timing(record);
    const auto j = judge();
    EXPECT_EQ(j.result.v, verdict::rejected) << clock << " " << method;
    EXPECT_NE(evidence_of(j, "H3").find("which the runtime does not write on cpu"), std::string::npos) << evidence_of(j, "H3");
  }
  m_context.device = "cuda"; // where held events are the runtime's own
  candidate_outputs({1, 2, 3});
  auto record = timing_json(0.5);
  record["clock"] = "cuda_event";
  record["method"] = "held_events";
  candidate_timing(record);
  EXPECT_EQ(evidence_of(judge(), "H3").find("does not write"), std::string::npos);
}

// The details as stored: each case compared, under "cases", written from the judgement's typed list;
// a run that did not finish cleanly compared none and has no "cases".
TEST_F(judge_fixture, the_stored_details_list_every_case_compared) {
  candidate_outputs({1, 2, 4}); // the last value off
  const auto j = judge();
  ASSERT_TRUE(j.cases);
  const auto details = arbiter::judge::details_json(j);
  ASSERT_EQ(details["cases"].size(), 3u);
  EXPECT_EQ(details["cases"][2]["shape"], "n3");
  EXPECT_EQ(details["cases"][2]["input_set"], 2);
  EXPECT_EQ(details["cases"][2]["ok"], false);
  EXPECT_EQ(details["cases"][2]["mismatches"], 1);
  EXPECT_FALSE(details.contains("outside_scored"));
  m_run.process.end = sandbox::process_end::timed_out;
  const auto killed = judge();
  EXPECT_FALSE(killed.cases);
  EXPECT_FALSE(arbiter::judge::details_json(killed).contains("cases"));
}
