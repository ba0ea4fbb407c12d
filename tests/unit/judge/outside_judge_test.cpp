// The judge's reading of the outside clock: the batches' wall and CPU account against the record,
// the score confirmed from outside, the quiet window after each answer.
#include "judge_fixture.hpp"

namespace {

TEST_F(judge_fixture, a_record_faster_than_the_outside_clock_allows_is_rejected) {
  candidate_outputs({1, 2, 3});
  candidate_timing(timing_json(0.05)); // the whole channel's record forged: 40x over eager
  outside_batch({1, 2, 3}, 2.0);       // what a call costs
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected) << j.result.reason;
  EXPECT_TRUE(has_finding(j, "T4")) << j.result.reason;
  EXPECT_NE(j.result.reason.find("orchestrator's clock saw 2 ms per call over 2 calls"), std::string::npos) << j.result.reason;
  ASSERT_EQ(j.details["outside_clock"].size(), 1u);
  EXPECT_NEAR(j.details["outside_clock"][0]["wall"]["per_call_ms"].get<double>(), 2.0, 1e-9);
}

TEST_F(judge_fixture, with_the_static_rules_off_no_fact_decides_and_the_outside_clock_still_rejects) {
  candidate_outputs({1, 2, 3});
  m_run.facts = {{"languages", {"torch"}},
                 {"facts", {{{"kind", "frame"}, {"what", "sys._getframe"}, {"where", "kernel.py:3"}, {"function", "forward"}}}}};
  m_context.static_rules = false;
  const auto honest = judge();
  EXPECT_EQ(honest.result.v, verdict::passed) << honest.result.reason; // the frame fact (T7) is kept, not applied
  EXPECT_EQ(honest.details.value("static_rules", ""), "off");
  candidate_timing(timing_json(0.05)); // the whole record forged: 40x over eager
  outside_batch({1, 2, 3}, 2.0);
  const auto forged = judge();
  EXPECT_EQ(forged.result.v, verdict::rejected) << forged.result.reason;
  EXPECT_TRUE(has_finding(forged, "T4")) << forged.result.reason;
  for (const auto& f : forged.findings) EXPECT_NE(f.source, "static") << f.evidence;
  m_context.static_rules = true;
  EXPECT_TRUE(has_finding(judge(), "T7"));
}

TEST_F(judge_fixture, the_candidates_own_no_call_batch_is_its_overhead_up_to_a_cap) {
  candidate_outputs({1, 2, 3});
  // Honest, in a sandbox that moves files 3x slower than the reference's process: its own 3 ms
  // no-call batch is the yardstick, and 0.5 ms a call is what it claimed.
  m_run.outside.batches = {{0, "candidate", 2, 3.0 + 2 * 0.5, true, std::nullopt, 0.0},
                           {0, "overhead", 2, 3.0, true, std::nullopt, 0.0}};
  EXPECT_EQ(judge().result.v, verdict::passed);
  // Forged, its no-call batch slowed to 50 ms to hide the calls: it counts as 4x the reference's
  // 1 ms, and the 5 ms calls still show.
  candidate_timing(timing_json(0.05));
  m_run.outside.batches = {{0, "candidate", 2, 1.0 + 2 * 5.0, true, std::nullopt, 0.0},
                           {0, "overhead", 2, 50.0, true, std::nullopt, 0.0}};
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected) << j.result.reason;
  EXPECT_NEAR(j.details["outside_clock"][0]["wall"]["overhead_ms"].get<double>(), 4.0, 1e-9);
}

namespace {

/// The reference's batches on a loaded host, with the kernel's CPU account too: the no-call
/// batches' walls from 12 to 30 ms for 0.8 ms of CPU, its calls 2 ms of CPU each (its record's 2 ms).
void reference_with_cpu(const fs::path& ref_dir) {
  arbiter::judge::outside_record reference;
  reference.batches = {{0, "reference", 2, 20.0, true, 0.8 + 2 * 2.0, std::nullopt},
                       {0, "overhead0", 2, 12.0, true, 0.8, std::nullopt},
                       {0, "overhead1", 2, 30.0, true, 0.82, std::nullopt},
                       {0, "overhead2", 2, 20.0, true, 0.81, std::nullopt}};
  arbiter::judge::write_outside(ref_dir / "outside.json", reference);
}

} // namespace

TEST_F(judge_fixture, the_cpu_account_catches_a_record_the_loaded_wall_lets_through) {
  reference_with_cpu(ref());
  candidate_outputs({1, 2, 3});
  candidate_timing(timing_json(0.25)); // claims 4x less than its calls cost
  // The host is loaded: the batch's wall is dominated by a 40 ms no-call cost that varies by more
  // than the calls, so the wall's allowance swallows them; their CPU time (1 ms each over 0.8 ms
  // of reads) does not.
  m_run.outside.batches = {{0, "candidate", 2, 42.0, true, 0.8 + 2 * 2.0, 0.0}, {0, "overhead", 2, 40.0, true, 0.8, 0.0}};
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected) << j.result.reason;
  EXPECT_NE(j.result.reason.find("kernel's account of the evaluation's CPU time saw 2 ms per call"), std::string::npos)
      << j.result.reason;
  EXPECT_NEAR(j.details["outside_clock"][0]["cpu"]["per_call_ms"].get<double>(), 2.0, 1e-9);
}

TEST_F(judge_fixture, on_the_cpu_a_loaded_wall_does_not_judge_where_the_cpu_account_clears_the_calls) {
  reference_with_cpu(ref());
  candidate_outputs({1, 2, 3});
  candidate_timing(timing_json(0.5));
  // A load spike during the batch: 60 ms of wall over a 4 ms no-call batch, but the calls' CPU
  // time is what the record claims.
  m_run.outside.batches = {{0, "candidate", 2, 64.0, true, 0.8 + 2 * 0.5, 0.0}, {0, "overhead", 2, 4.0, true, 0.8, 0.0}};
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::passed) << j.result.reason;
  EXPECT_GT(j.details["outside_clock"][0]["wall"]["per_call_ms"].get<double>(), 20.0);
}

TEST_F(judge_fixture, an_honest_calls_cpu_time_within_the_allowance_passes) {
  reference_with_cpu(ref());
  candidate_outputs({1, 2, 3});
  candidate_timing(timing_json(0.5));
  m_run.outside.batches = {{0, "candidate", 2, 3.0, true, 0.8 + 2 * 0.7, 0.0}, {0, "overhead", 2, 2.0, true, 0.9, 0.0}};
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::passed) << j.result.reason;
}

TEST_F(judge_fixture, on_the_cpu_a_score_counts_only_as_far_as_the_outside_account_confirms_it) {
  reference_with_cpu(ref()); // the reference's calls: 2 ms of CPU each against its record's 2 ms
  candidate_outputs({1, 2, 3});
  candidate_timing(timing_json(0.5)); // claims 4x over eager
  // Its calls cost 0.9 ms of CPU each: inside the CPU rule's 2x (no T4), beyond the score's
  // tolerance, so the outside account times the shape and the score is 2/0.9.
  m_run.outside.batches = {{0, "candidate", 2, 3.0, true, 0.8 + 2 * 0.9, 0.0}, {0, "overhead", 2, 2.0, true, 0.8, 0.0}};
  const auto scored = judge();
  EXPECT_EQ(scored.result.v, verdict::passed) << scored.result.reason;
  ASSERT_TRUE(has_finding(scored, "T4")); // shown as evidence, deciding nothing
  for (const auto& f : scored.findings) EXPECT_EQ(f.level, guard::severity::info) << f.evidence;
  ASSERT_TRUE(scored.speedup.has_value());
  EXPECT_NEAR(*scored.speedup, 2.0 / 0.9, 1e-9);
  EXPECT_NE(scored.result.reason.find("2.22× over eager"), std::string::npos) << scored.result.reason;
  EXPECT_EQ(scored.measurements[1].method, "outside_cpu");
  EXPECT_NEAR(scored.measurements[1].p90_ms, 0.9, 1e-9); // the record's samples scaled alike
  ASSERT_EQ(scored.outside_scored.size(), 1u);
  EXPECT_DOUBLE_EQ(scored.outside_scored[0].record_ms, 0.5);
  EXPECT_EQ(arbiter::judge::details_json(scored)["outside_scored"][0]["record_ms"], 0.5);
  // The reference's own batch at twice its record (its weights cold in its timed loop) changes
  // nothing: the candidate's batch is held against the candidate's record.
  arbiter::judge::outside_record reference;
  reference.batches = {{0, "reference", 2, 20.0, true, 0.8 + 2 * 4.0, std::nullopt},
                       {0, "overhead0", 2, 12.0, true, 0.8, std::nullopt},
                       {0, "overhead1", 2, 30.0, true, 0.82, std::nullopt},
                       {0, "overhead2", 2, 20.0, true, 0.81, std::nullopt}};
  arbiter::judge::write_outside(ref() / "outside.json", reference);
  EXPECT_NEAR(*judge().speedup, 2.0 / 0.9, 1e-9);
  // A batch within 1.3x the record plus the slack: the record stands.
  m_run.outside.batches = {{0, "candidate", 2, 3.0, true, 0.8 + 2 * 0.7, 0.0}, {0, "overhead", 2, 2.0, true, 0.8, 0.0}};
  const auto stands = judge();
  EXPECT_DOUBLE_EQ(*stands.speedup, 4.0);
  EXPECT_FALSE(stands.details.contains("outside_scored"));
}

TEST_F(judge_fixture, the_outside_account_never_raises_a_score) {
  reference_with_cpu(ref());
  candidate_outputs({1, 2, 3});
  candidate_timing(timing_json(0.5));
  // The batch's calls cheaper than the record (warm caches, a quiet moment): the record stands.
  m_run.outside.batches = {{0, "candidate", 2, 3.0, true, 0.8 + 2 * 0.2, 0.0}, {0, "overhead", 2, 2.0, true, 0.8, 0.0}};
  const auto j = judge();
  EXPECT_DOUBLE_EQ(*j.speedup, 4.0);
  EXPECT_EQ(j.measurements[1].method, "steady_clock");
}

TEST_F(judge_fixture, a_no_call_batch_burning_cpu_hides_at_most_half_the_references_more) {
  reference_with_cpu(ref());
  candidate_outputs({1, 2, 3});
  candidate_timing(timing_json(0.25));
  // The no-call batch burns 10 ms of CPU to pass for overhead: it counts as 1.5 x 0.8 ms, and the
  // calls' 1.5 ms each show.
  m_run.outside.batches = {{0, "candidate", 2, 43.0, true, 0.8 + 2 * 2.5, 0.0}, {0, "overhead", 2, 40.0, true, 10.0, 0.0}};
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected) << j.result.reason;
  EXPECT_NEAR(j.details["outside_clock"][0]["cpu"]["overhead_ms"].get<double>(), 1.2, 1e-9);
}

TEST_F(judge_fixture, a_quiet_window_that_saw_nothing_fails_closed) {
  candidate_outputs({1, 2, 3});
  m_run.outside.batches[0].busy_ms.reset(); // neither the cgroup's account nor the threads' run times
  auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected) << j.result.reason;
  EXPECT_TRUE(has_finding(j, "H3"));
  EXPECT_NE(j.result.reason.find("quiet window"), std::string::npos) << j.result.reason;
  m_run.outside.batches[0].threads_busy_ms = 0.0; // the threads' account alone, but no thread found
  m_run.outside.batches[0].threads = 0;
  EXPECT_EQ(judge().result.v, verdict::rejected);
  m_run.outside.batches[0].threads = 2; // two threads, idle: quiet
  j = judge();
  EXPECT_EQ(j.result.v, verdict::passed) << j.result.reason;
}

TEST_F(judge_fixture, cpu_used_while_the_runner_waits_after_its_answer_is_work_outliving_the_calls) {
  candidate_outputs({1, 2, 3});
  m_run.outside.batches[0].busy_ms = 0.2; // the harness's own wake-ups: an idle process
  EXPECT_EQ(judge().result.v, verdict::passed);
  m_run.outside.batches[0].busy_ms = 4.0; // a thread busy at return
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected);
  EXPECT_NE(j.result.reason.find("T2"), std::string::npos) << j.result.reason;
  EXPECT_DOUBLE_EQ(j.details["outside_clock"][0]["busy_after_answer_ms"]["candidate"].get<double>(), 4.0);
}

TEST_F(judge_fixture, without_a_cgroup_account_the_threads_run_times_name_the_busy_thread) {
  candidate_outputs({1, 2, 3});
  auto& batch = m_run.outside.batches[0];
  batch.busy_ms.reset(); // no cgroup
  batch.threads = 3;
  batch.threads_busy_ms = 0.3; // the runner's wake-ups
  EXPECT_EQ(judge().result.v, verdict::passed);
  batch.threads_busy_ms = 3.9;
  batch.busy_threads = {"worker (tid 12): 3.8 ms"};
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected) << j.result.reason;
  EXPECT_NE(j.result.reason.find("its threads' run times"), std::string::npos) << j.result.reason;
  EXPECT_NE(j.result.reason.find("worker (tid 12): 3.8 ms"), std::string::npos) << j.result.reason;
  EXPECT_EQ(j.details["outside_clock"][0]["threads_at_answer"]["candidate"], 3);
}

TEST_F(judge_fixture, without_a_cpu_account_the_wall_alone_judges_and_the_details_say_so) {
  candidate_outputs({1, 2, 3});
  const auto j = judge(); // the fixture's batches carry no CPU time (a host without a cgroup)
  EXPECT_EQ(j.result.v, verdict::passed) << j.result.reason;
  EXPECT_TRUE(j.details["outside_clock"][0]["cpu"].is_string());
}

TEST_F(judge_fixture, a_sandbox_limit_reached_is_a_runtime_error_whatever_else_passed) {
  candidate_outputs({1, 2, 3});
  m_run.process.limit_exceeded = "its work folder held 1.6 GiB, past the 1 GiB cap (the excess was removed)";
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::runtime_error);
  EXPECT_NE(j.result.reason.find("exceeded a sandbox limit: its work folder held 1.6 GiB"), std::string::npos) << j.result.reason;
}

TEST_F(judge_fixture, an_honest_record_within_the_outside_clock_passes) {
  candidate_outputs({1, 2, 3});
  outside_batch({1, 2, 3}, 0.9); // slower in the batch than timed (cold data), within the allowance
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::passed) << j.result.reason;
}

TEST_F(judge_fixture, a_finished_run_without_its_outside_batch_is_a_forged_channel) {
  candidate_outputs({1, 2, 3});
  m_run.outside.batches.clear();
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected);
  EXPECT_NE(j.result.reason.find("no outside-clock batch ran"), std::string::npos) << j.result.reason;
}

TEST_F(judge_fixture, a_wrong_output_on_the_outside_sets_is_S6) {
  candidate_outputs({1, 2, 3});
  outside_batch({3, 2, 1}, 0.5);
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected);
  EXPECT_TRUE(has_finding(j, "S6")) << j.result.reason;
}

TEST_F(judge_fixture, a_reference_without_its_batches_fails_closed) {
  candidate_outputs({1, 2, 3});
  fs::remove(ref() / "outside.json");
  const auto j = judge();
  EXPECT_EQ(j.result.v, verdict::rejected);
  EXPECT_NE(j.result.reason.find("evidence the judge needs is unavailable"), std::string::npos) << j.result.reason;
}

} // namespace
