#include "arbiter/guard/dynamic_rules.hpp"
#include "arbiter/guard/finding.hpp"
#include "arbiter/guard/probe_rules.hpp"
#include "arbiter/guard/static_rules.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace arbiter::guard {
namespace {

nlohmann::json facts_of(std::initializer_list<std::pair<const char*, const char*>> kinds_and_whats,
                        const char* function = "forward") {
  nlohmann::json doc = {{"languages", {"torch"}}, {"facts", nlohmann::json::array()}};
  for (const auto& [kind, what] : kinds_and_whats)
    doc["facts"].push_back({{"kind", kind}, {"what", what}, {"where", "kernel.py:3"}, {"function", function}});
  return doc;
}

bool has(const std::vector<finding>& findings, const std::string& pattern, severity level) {
  for (const auto& f : findings)
    if (f.pattern == pattern && f.level == level) return true;
  return false;
}

TEST(finding, catalog_has_every_row) {
  for (const char* id : {"T1", "T8", "S1", "S9", "B1", "B3", "H1", "H7"}) EXPECT_TRUE(is_catalog_pattern(id)) << id;
  EXPECT_FALSE(is_catalog_pattern("T9"));
  EXPECT_FALSE(is_catalog_pattern(""));
}

TEST(finding, reject_overrides_a_pass_and_a_failure_and_names_the_patterns) {
  const std::vector<finding> findings{{"S1", severity::reject, "aliases input 0", "dynamic"},
                                      {"T4", severity::reject, "patched time.perf_counter", "static"}};
  const auto passed = decide({verdict::passed, "ok"}, findings);
  EXPECT_EQ(passed.v, verdict::rejected);
  EXPECT_NE(passed.reason.find("(T4, S1)"), std::string::npos) << passed.reason;
  EXPECT_NE(passed.reason.find("aliases input 0"), std::string::npos);
  EXPECT_EQ(decide({verdict::incorrect, "bad"}, findings).v, verdict::rejected);
  EXPECT_EQ(decide({verdict::crashed, "env"}, findings).v, verdict::crashed);
}

TEST(finding, flag_rejects_only_what_would_have_passed) {
  const std::vector<finding> findings{{"S2", severity::flag, "poison left", "dynamic"}, {"S4", severity::info, "half", "static"}};
  EXPECT_EQ(decide({verdict::passed, "ok"}, findings).v, verdict::rejected);
  EXPECT_EQ(decide({verdict::runtime_error, "exited"}, findings).v, verdict::runtime_error);
  EXPECT_EQ(decide({verdict::passed, "ok"}, {{"S4", severity::info, "half", "static"}}).v, verdict::passed);
}

TEST(static_rules, facts_that_could_not_be_had_fail_closed) {
  const catalog::rules rules;
  const auto crashed = static_findings({{"unavailable", "the facts process exited with status 1"}}, rules);
  ASSERT_TRUE(has(crashed, "H3", severity::flag));
  EXPECT_NE(crashed.front().evidence.find("static facts unavailable: the facts process exited"), std::string::npos);
  EXPECT_TRUE(has(static_findings(nlohmann::json(), rules), "H3", severity::flag)); // no document at all
  EXPECT_TRUE(has(static_findings(facts_of({{"syntax_error", "invalid syntax"}}), rules), "H3", severity::flag));
  EXPECT_TRUE(static_findings(facts_of({}), rules).empty());
}

TEST(static_rules, members_of_the_wrong_type_read_as_empty) {
  // fuzz/regressions/facts: nlohmann's value() threw on a kind that is not a string.
  const auto doc = nlohmann::json::parse(
      R"({"facts": [{"kind": 1, "what": null, "where": [], "function": {}}, {"kind": "thread", "what": 5}]})");
  std::vector<finding> found;
  ASSERT_NO_THROW(found = static_findings(doc, catalog::rules{}));
  ASSERT_TRUE(has(found, "T2", severity::info)); // the thread fact still counts
  EXPECT_NE(found.back().evidence.find("'' at "), std::string::npos) << found.back().evidence;
}

TEST(static_rules, streams_graphs_and_libraries_follow_the_rules) {
  catalog::rules strict;
  const auto doc = facts_of({{"stream", "torch.cuda.Stream"}, {"graph", "torch.cuda.CUDAGraph"}, {"library", "torch.matmul"}});
  const auto found = static_findings(doc, strict);
  EXPECT_TRUE(has(found, "T1", severity::reject));
  EXPECT_TRUE(has(found, "T8", severity::reject));
  EXPECT_TRUE(has(found, "B1", severity::reject));
  catalog::rules lax;
  lax.extra_streams = lax.cuda_graphs = lax.libraries = true;
  EXPECT_TRUE(has(static_findings(doc, lax), "T1", severity::reject)); // allowed, but never joined
  const auto joined =
      facts_of({{"stream", "torch.cuda.Stream"}, {"stream_join", "?.wait_stream"}, {"graph", "torch.cuda.graph"}});
  EXPECT_TRUE(static_findings(joined, lax).empty());
}

TEST(static_rules, forbid_matches_aliases_and_methods) {
  catalog::rules r;
  r.forbid = {"torch.softmax"};
  EXPECT_TRUE(has(static_findings(facts_of({{"call", "?.softmax"}}), r), "B1", severity::reject));
  EXPECT_TRUE(has(static_findings(facts_of({{"call", "torch.nn.functional.softmax"}}), r), "B1", severity::reject));
  EXPECT_TRUE(static_findings(facts_of({{"call", "mylib.softmax"}}), r).empty());
}

TEST(static_rules, an_op_named_at_run_time_is_B1_where_the_rules_restrict_ops) {
  const auto doc = facts_of({{"computed_op", "getattr(torch, 'mat' + 'mul')"}});
  catalog::rules strict; // libraries = false
  EXPECT_TRUE(has(static_findings(doc, strict), "B1", severity::flag));
  catalog::rules lax;
  lax.libraries = true;
  EXPECT_TRUE(has(static_findings(doc, lax), "B1", severity::info));
  lax.forbid = {"torch.softmax"};
  EXPECT_TRUE(has(static_findings(doc, lax), "B1", severity::flag));
}

TEST(static_rules, languages_gate) {
  catalog::rules r;
  r.languages = {"cuda", "cpp"};
  EXPECT_TRUE(has(static_findings(facts_of({}), r), "B2", severity::reject));
  auto doc = facts_of({});
  doc["languages"] = {"cpp"};
  EXPECT_TRUE(static_findings(doc, r).empty());
}

TEST(static_rules, kinds_map_to_patterns) {
  catalog::rules r;
  EXPECT_TRUE(has(static_findings(facts_of({{"monkeypatch", "time.perf_counter"}}), r), "T4", severity::reject));
  EXPECT_TRUE(has(static_findings(facts_of({{"monkeypatch", "arbiter_runner.tensors.hash_values"}}), r), "H3", severity::reject));
  EXPECT_TRUE(has(static_findings(facts_of({{"file_read", "'/data/expected/0/0/outputs.arbb'"}}), r), "S8", severity::reject));
  EXPECT_TRUE(has(static_findings(facts_of({{"seed", "torch.manual_seed"}}), r), "S6", severity::reject));
  EXPECT_TRUE(static_findings(facts_of({{"seed", "torch.manual_seed"}}, "__init__"), r).empty());
  EXPECT_TRUE(has(static_findings(facts_of({{"exit", "os._exit"}}), r), "H2", severity::reject));
  EXPECT_TRUE(has(static_findings(nlohmann::json::array(), r), "H3", severity::flag)); // no facts: fail closed
  // A backend switch (cuDNN's autotuning) is shown, never deciding; a reduced-precision one is S4.
  const auto autotune = static_findings(facts_of({{"backend_setting", "torch.backends.cudnn.benchmark"}}), r);
  EXPECT_TRUE(has(autotune, "T4", severity::info));
  EXPECT_FALSE(has(autotune, "T4", severity::reject));
  EXPECT_TRUE(has(static_findings(facts_of({{"precision", "torch.backends.cuda.matmul.allow_tf32"}}), r), "S4", severity::info));
}

TEST(static_rules, executable_memory_and_reaching_the_harness_are_rejected) {
  const catalog::rules r;
  EXPECT_TRUE(has(static_findings(facts_of({{"exec_memory", "mmap.PROT_EXEC"}}), r), "H7", severity::reject));
  EXPECT_TRUE(has(static_findings(facts_of({{"exec_memory", "libc.mprotect"}}), r), "H7", severity::reject));
  EXPECT_TRUE(has(static_findings(facts_of({{"native_reach", "dl_iterate_phdr"}}), r), "H3", severity::reject));
  EXPECT_TRUE(has(static_findings(facts_of({{"ctypes", "torch.ctypes"}}), r), "H7", severity::flag));
  EXPECT_TRUE(has(static_findings(facts_of({{"harness", "import arbiter_runner"}}), r), "H3", severity::reject));
  EXPECT_TRUE(has(static_findings(facts_of({{"harness", "sys.argv"}}), r), "H3", severity::reject));
  EXPECT_TRUE(has(static_findings(facts_of({{"file_write", "path"}}), r), "H1", severity::reject));
}

TEST(dynamic_rules, each_failing_check_kind_is_one_finding) {
  run_evidence e;
  e.checks = {{"mutation", "shape 4k, input set 0", true, "", false}};
  EXPECT_TRUE(dynamic_findings(e).empty());
  e.checks = {{"mutation", "shape 4k, input set 0", false, "max abs err 3.1", false},
              {"mutation", "shape 4k, input set 1", false, "max abs err 2.0", false},
              {"timed", "shape 4k, timed call 7", false, "mismatch", true},
              {"timed", "shape 4k, timed call 9", false, "mismatch", false}};
  const auto found = dynamic_findings(e);
  EXPECT_EQ(found.size(), 3u);
  EXPECT_TRUE(has(found, "S5", severity::reject));
  EXPECT_TRUE(has(found, "T5", severity::reject));
  EXPECT_TRUE(has(found, "T7", severity::reject));
}

TEST(dynamic_rules, observations_map_to_patterns) {
  run_evidence e;
  e.aliases = {"output 0 shares storage with input 0"};
  e.thread_leaks = {"Thread-1"};
  e.patched = {"time.perf_counter"};
  e.output_types = {"output 0 is LazyTensor"};
  e.inputs_mutated = true;
  auto found = dynamic_findings(e);
  for (const char* id : {"S1", "T4", "T3"}) EXPECT_TRUE(has(found, id, severity::reject)) << id;
  EXPECT_TRUE(has(found, "S7", severity::reject));
  // A thread alive after the calls, by the runner's own census, is evidence: a joined pool is legal.
  EXPECT_TRUE(has(found, "T2", severity::info));
  EXPECT_FALSE(has(found, "T2", severity::reject));
  e.busy_after_answer = {"shape 4k: 3.2 ms of CPU in 5 ms"}; // work outliving the calls, read outside
  EXPECT_TRUE(has(dynamic_findings(e), "T2", severity::reject));
  e.reference_aliases = e.reference_mutates = true;
  found = dynamic_findings(e);
  EXPECT_FALSE(has(found, "S1", severity::reject));
  EXPECT_FALSE(has(found, "S7", severity::reject));
}

TEST(dynamic_rules, timed_calls_far_faster_than_a_call_on_unseen_inputs_are_T5) {
  run_evidence e;
  e.work = {{"4k", 0.15, 0.001}}; // under the floor: launch and synchronisation dominate
  EXPECT_TRUE(dynamic_findings(e).empty());
  e.work = {{"4k", 2.0, 0.9}, {"odd", 1.0, 0.6}}; // honest: a fresh call costs about a timed one
  EXPECT_TRUE(dynamic_findings(e).empty());
  e.work.push_back({"4m", 12.0, 0.1}); // served from a table or a memo: 120x
  const auto found = dynamic_findings(e);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pattern, "T5");
  EXPECT_EQ(found[0].level, severity::reject);
  EXPECT_NE(found[0].evidence.find("shape 4m"), std::string::npos) << found[0].evidence;
}

TEST(dynamic_rules, the_work_check_allows_what_the_reference_itself_shows) {
  run_evidence e;
  // On cuda a lone synchronised call of a 0.031 ms kernel took 0.31 ms (10x): so did the
  // reference's own (0.3 ms against 0.03 ms), which says launch and synchronisation, not a memo.
  e.work = {{"n", 0.31, 0.031, 10.0}};
  EXPECT_TRUE(dynamic_findings(e).empty());
  // The reference's ratio widens the allowance only to twice itself: a memo 60x faster still shows.
  e.work = {{"n", 1.8, 0.03, 10.0}};
  const auto found = dynamic_findings(e);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pattern, "T5");
}

TEST(dynamic_rules, a_loop_clock_that_disagrees_with_the_kernel_clock_is_T4) {
  run_evidence e;
  e.clocks = {{"4k", 0.20178, 0.20177}, {"odd", 0.001, 0.004}}; // honest; too short a span to judge
  EXPECT_TRUE(dynamic_findings(e).empty());
  e.clocks.push_back({"1m", 0.2003, 0.8010}); // a steady_clock running 4x slow
  const auto found = dynamic_findings(e);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pattern, "T4");
  EXPECT_EQ(found[0].level, severity::reject);
  EXPECT_NE(found[0].evidence.find("0.25"), std::string::npos) << found[0].evidence;
}

TEST(dynamic_rules, the_outside_cpu_account_confirms_a_record_within_its_tolerance) {
  // 10 calls at 2 ms of CPU each in the batch; T4 allows 2x the claim plus 0.1 ms.
  outside_check c{"4k", "cpu", 10, 2.0, 1.6, 2.0, 0.1};
  EXPECT_FALSE(outside_confirmed_ms(c)); // 2 ms against a 1.6 ms record: within 1.3x plus the slack
  c.claimed_ms = 1.0;                    // a record that says 1 ms: the batch's 2 ms is the time
  ASSERT_TRUE(outside_confirmed_ms(c));
  EXPECT_DOUBLE_EQ(*outside_confirmed_ms(c), 2.0);
  run_evidence e;
  e.outside = {c};
  const auto shown = dynamic_findings(e);
  ASSERT_EQ(shown.size(), 1u); // inside the T4 rule's ratio: evidence, not a verdict
  EXPECT_EQ(shown[0].pattern, "T4");
  EXPECT_EQ(shown[0].level, severity::info);
  EXPECT_NE(shown[0].evidence.find("scored by 2 ms"), std::string::npos) << shown[0].evidence;
  c.claimed_ms = (2.0 - 0.1) / k_outside_score_tolerance; // exactly at the tolerance plus the slack: stands
  EXPECT_FALSE(outside_confirmed_ms(c));
  c.witness = "wall"; // the wall (cuda, or no CPU account) never scores
  c.claimed_ms = 0.1;
  EXPECT_FALSE(outside_confirmed_ms(c));
}

probe_evidence clean_probe() {
  probe_evidence e;
  e.expected = e.present = true;
  probe_shape s;
  s.shape = "4k";
  s.cases = 3;
  s.cases_with_kernels = 3;
  s.samples = 20;
  s.max_kernels_per_call = 2;
  s.span_median_ms = 0.100;
  s.reported_median_ms = 0.104;
  s.rel_noise = 0.01;
  e.shapes = {s};
  return e;
}

TEST(probe_rules, a_clean_run_has_no_finding) {
  std::vector<finding> found;
  probe_findings(clean_probe(), found);
  EXPECT_TRUE(found.empty());
  probe_findings(probe_evidence{}, found); // no probe at all: nothing to say
  EXPECT_TRUE(found.empty());
}

TEST(probe_rules, side_streams_and_escaping_work_are_T1) {
  auto e = clean_probe();
  e.shapes[0].samples_off_stream = 20;
  e.shapes[0].off_stream_work = 20;
  std::vector<finding> found;
  probe_findings(e, found);
  EXPECT_TRUE(has(found, "T1", severity::reject));
  e.extra_streams = true;
  e.shapes[0].samples_escaping = 3;
  e.shapes[0].escape_max_ns = 250'000;
  found.clear();
  probe_findings(e, found);
  EXPECT_FALSE(has(found, "T1", severity::reject));
  EXPECT_TRUE(has(found, "T1", severity::flag));
}

TEST(probe_rules, timed_calls_without_kernels_are_T5_when_the_record_is_complete) {
  auto e = clean_probe();
  e.shapes[0].samples_without_kernels = 20;
  std::vector<finding> found;
  probe_findings(e, found);
  EXPECT_TRUE(has(found, "T5", severity::flag));
  e.complete = false; // dropped records: absence proves nothing
  found.clear();
  probe_findings(e, found);
  EXPECT_FALSE(has(found, "T5", severity::flag));
  e.complete = true;
  e.shapes[0].cases_with_kernels = 0; // never any kernel: a host-side solution, other rules judge it
  found.clear();
  probe_findings(e, found);
  EXPECT_TRUE(found.empty());
}

TEST(probe_rules, graphs_and_launch_counts_against_the_rules_are_T8) {
  auto e = clean_probe();
  e.graph_launches = 4;
  e.max_launches = 1;
  std::vector<finding> found;
  probe_findings(e, found);
  EXPECT_EQ(std::count_if(found.begin(), found.end(), [](const finding& f) { return f.pattern == "T8"; }), 2);
  e.cuda_graphs = true;
  e.max_launches = 2;
  found.clear();
  probe_findings(e, found);
  EXPECT_TRUE(found.empty());
}

TEST(probe_rules, the_clocks_must_agree_both_ways) {
  // Short: the GPU ran longer than the timer says. Long: a held timer saw work the probe did not.
  EXPECT_EQ(compare_clocks(0.100, 0.104, 0.01, true), clock_agreement::agree);
  EXPECT_EQ(compare_clocks(0.100, 0.050, 0.01, true), clock_agreement::timer_short);
  EXPECT_EQ(compare_clocks(0.0013, 0.0039, 0.0, true), clock_agreement::agree); // 2.6 µs of launch: allowed
  EXPECT_EQ(compare_clocks(0.100, 0.100 + 0.005 + k_launch_allowance_ms + 0.001, 0.0, true), clock_agreement::timer_long);
  EXPECT_EQ(compare_clocks(0.100, 0.400, 0.0, false), clock_agreement::agree); // unheld: the host's launches
  auto e = clean_probe();
  e.shapes[0].held = true;
  e.shapes[0].span_median_ms = 0.001; // what the probe was let see
  e.shapes[0].reported_median_ms = 0.200;
  std::vector<finding> found;
  probe_findings(e, found);
  ASSERT_TRUE(has(found, "T4", severity::flag));
  EXPECT_NE(found[0].evidence.find("0.2000 ms"), std::string::npos) << found[0].evidence;
  EXPECT_NE(found[0].evidence.find("0.0010 ms"), std::string::npos) << found[0].evidence;
}

TEST(probe_rules, the_probes_bookkeeping_must_match_the_runtimes) {
  auto e = clean_probe();
  e.shapes[0].expected_samples = 20;
  e.shapes[0].sample_windows = 20;
  std::vector<finding> found;
  probe_findings(e, found);
  EXPECT_TRUE(found.empty());
  e.shapes[0].sample_windows = 12; // windows the table dropped, or markers that never came
  e.shapes[0].sample_indices_missing = 8;
  probe_findings(e, found);
  ASSERT_TRUE(has(found, "T4", severity::flag));
  EXPECT_NE(found[0].evidence.find("timed 20 samples, the probe kept 12 sample windows"), std::string::npos) << found[0].evidence;
  e = clean_probe();
  e.shapes[0].outside_timed_kernels = k_outside_kernels_allowed; // the captures' clones
  found.clear();
  probe_findings(e, found);
  EXPECT_TRUE(found.empty());
  e.shapes[0].outside_timed_kernels = 20; // one per timed call: the work moved out of the windows
  e.shapes[0].outside_timed_busy_ns = 2'000'000;
  probe_findings(e, found);
  EXPECT_TRUE(has(found, "T1", severity::flag));
  e = clean_probe();
  e.shapes[0].samples_transfer_only = 20; // a memset in each call, no kernel
  found.clear();
  probe_findings(e, found);
  EXPECT_TRUE(found.empty()); // unless the reference's timed calls run kernels
  e.shapes[0].reference_runs_kernels = true;
  probe_findings(e, found);
  EXPECT_TRUE(has(found, "T5", severity::flag));
  e = clean_probe();
  e.witness.windows_dropped = 3;
  found.clear();
  probe_findings(e, found);
  EXPECT_TRUE(has(found, "T4", severity::flag));
}

TEST(probe_rules, a_bent_witness_is_H3) {
  auto e = clean_probe();
  e.shapes[0].samples_missing_records = 20; // launches returned, kernel records absent
  e.shapes[0].samples_unrecorded = 20;
  e.shapes[0].launches_unrecorded = 40;
  std::vector<finding> found;
  probe_findings(e, found);
  ASSERT_TRUE(has(found, "H3", severity::reject));
  EXPECT_NE(found[0].evidence.find("returned 40 kernel launches"), std::string::npos) << found[0].evidence;
  e.complete = false; // records lost by CUPTI itself: no conclusion
  found.clear();
  probe_findings(e, found);
  EXPECT_FALSE(has(found, "H3", severity::reject));
  e = clean_probe();
  e.witness.forged_markers = 2;
  probe_findings(e, found);
  EXPECT_TRUE(has(found, "H3", severity::reject));
  e = clean_probe();
  e.witness.callbacks_disabled = 1;
  e.witness.notes = "cuLaunchKernel at begin (check 7)";
  found.clear();
  probe_findings(e, found);
  ASSERT_TRUE(has(found, "H3", severity::reject));
  EXPECT_NE(found[0].evidence.find("cuLaunchKernel at begin"), std::string::npos) << found[0].evidence;
}

TEST(probe_rules, vendor_library_kernels_are_recognised_by_name) {
  // Names cuBLAS launched on an H200 (bench/timing_fidelity, torch 2.11), and older ones.
  EXPECT_TRUE(library_kernel("nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT"));
  EXPECT_TRUE(library_kernel("nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT"));
  EXPECT_TRUE(library_kernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn"));
  EXPECT_TRUE(library_kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1"));
  EXPECT_TRUE(library_kernel("void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false>(...)"));
  EXPECT_TRUE(library_kernel("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_nn_align8>(...)"));
  EXPECT_TRUE(library_kernel("fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<...>::Params)"));
  EXPECT_TRUE(library_kernel("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>(...)"));
  EXPECT_TRUE(library_kernel("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x128_4x1x1"));
  EXPECT_TRUE(library_kernel("void at::native::tinygemm_m16n8k16_chunk_kernel<(at::native::KReductionType)0, ...>(...)"));
  EXPECT_TRUE(library_kernel("void at::native::weight_int8pack_mm_kernel<32>(float const*, signed char const*, ...)"));
  // The solution's own kernels, PyTorch's elementwise and reduction kernels, Triton's.
  EXPECT_FALSE(library_kernel("matmul_kernel"));
  EXPECT_FALSE(library_kernel("my_sgemm_tiled"));
  EXPECT_FALSE(library_kernel("relu_vec4_kernel(float4 const*, float4*, long)"));
  EXPECT_FALSE(library_kernel("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(...)"));
  EXPECT_FALSE(library_kernel("triton_poi_fused_add_mul_0"));
  EXPECT_FALSE(library_kernel("flash_fwd_kernel"));
  EXPECT_FALSE(library_kernel("_weight_int8pack_mm_kernel")); // a Triton kernel of the solution's own, so named
}

TEST(probe_rules, library_kernels_where_the_problem_forbids_libraries_are_B1) {
  auto e = clean_probe();
  e.library_kernels = {"nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT"};
  std::vector<finding> found;
  probe_findings(e, found);
  ASSERT_TRUE(has(found, "B1", severity::reject));
  EXPECT_NE(found.back().evidence.find("nvjet_sm90_tst"), std::string::npos);
  e.libraries = true;
  found.clear();
  probe_findings(e, found);
  EXPECT_TRUE(found.empty());
}

TEST(probe_rules, a_timer_that_misses_the_gpu_work_is_T4) {
  EXPECT_FALSE(timer_misses_work(0.100, 0.097, 0.01)); // within 5 %
  EXPECT_FALSE(timer_misses_work(0.010, 0.0085, 0.0)); // 1.5 µs: under the 2 µs floor
  EXPECT_FALSE(timer_misses_work(1.0, 0.85, 0.06));    // within 3 × noise
  EXPECT_TRUE(timer_misses_work(1.0, 0.85, 0.01));
  EXPECT_FALSE(timer_misses_work(0.1, 0.5, 0.01)); // the timer above the span: overhead, no finding
  auto e = clean_probe();
  e.shapes[0].reported_median_ms = 0.020;
  std::vector<finding> found;
  probe_findings(e, found);
  EXPECT_TRUE(has(found, "T4", severity::flag));
}

TEST(probe_rules, a_finished_run_whose_probe_left_no_evidence_is_H2) {
  probe_evidence e;
  e.expected = true;
  e.missing = "no probe.json";
  run_evidence run;
  run.probe = e;
  const auto found = dynamic_findings(run);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pattern, "H2");
  EXPECT_EQ(found[0].level, severity::reject);
  EXPECT_EQ(found[0].source, "probe");
  EXPECT_NE(found[0].evidence.find("no probe.json"), std::string::npos);
}

TEST(probe_rules, a_run_that_ended_early_without_evidence_has_no_probe_finding) {
  probe_evidence e; // expected stays false: the process never reached the probe's writer
  e.missing = "no probe.json";
  std::vector<finding> found;
  probe_findings(e, found);
  EXPECT_TRUE(found.empty());
}

TEST(probe_rules, forged_evidence_is_H3_and_rejected) {
  probe_evidence e;
  e.expected = true;
  e.forged = "probe.json is unsigned (no probe.json.mac): not written by this run's probe";
  std::vector<finding> found;
  probe_findings(e, found);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pattern, "H3");
  EXPECT_EQ(found[0].level, severity::reject);
  EXPECT_NE(found[0].evidence.find("unsigned"), std::string::npos);
}

} // namespace
} // namespace arbiter::guard
