// The probe's core without a GPU: windows, attribution by correlation id, the evidence file. The
// CUPTI side (injection.cpp, activity.cpp, markers.cpp) only feeds these calls; it runs in the
// gpu tests.
#include "arbiter/probe/signature.hpp"
#include "evidence_json.hpp"
#include "recorder.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace arbiter::probe {
namespace {

kernel_record kernel_at(std::uint32_t correlation, std::uint64_t start, std::uint64_t end, std::uint32_t stream = 7,
                        const char* name = "_Z6matmulPKfS0_Pfi") {
  kernel_record k;
  k.name = name;
  k.correlation = correlation;
  k.run.start_ns = start;
  k.run.end_ns = end;
  k.run.stream = stream;
  k.run.grid = {128, 1, 1};
  k.run.block = {256, 1, 1};
  return k;
}

nlohmann::json parsed(const recorder& rec) { return nlohmann::json::parse(evidence_json(rec.snapshot())); }

TEST(recorder, attributes_records_to_windows_by_correlation_range) {
  recorder rec;
  rec.kernel(kernel_at(3, 10, 20)); // before any window
  rec.begin("case", 0, 1, 7, 11, 1000);
  rec.launch(false);
  rec.end(15, 2000, 5);
  rec.begin("sample", 0, 0, 7, 16, 3000);
  rec.launch(false);
  rec.launch(false);
  rec.end(20, 4000, 6);
  rec.kernel(kernel_at(12, 1100, 1300));
  rec.kernel(kernel_at(17, 3100, 3200));
  rec.kernel(kernel_at(19, 3250, 3500));
  rec.kernel(kernel_at(25, 4100, 4200)); // after the last window
  rec.copy({13, 7, 1050, 1080});
  rec.memset({18, 7, 3500, 3600}); // the call's last work: a memset after its kernels
  const auto e = rec.snapshot();
  ASSERT_EQ(e.windows.size(), 2u);
  EXPECT_EQ(e.windows[0].kernels, 1u);
  EXPECT_EQ(e.windows[0].launches, 1u);
  EXPECT_EQ(e.windows[0].copies, 1u);
  EXPECT_EQ(e.windows[1].kernels, 2u);
  EXPECT_EQ(e.windows[1].launches, 2u);
  EXPECT_EQ(e.windows[1].memsets, 1u);
  EXPECT_EQ(e.windows[1].busy_ns, 100u + 250u + 100u);
  EXPECT_EQ(e.windows[1].span_ns(), 500u); // 3100 → 3600, the memset's end
  EXPECT_EQ(e.windows[0].span_ns(), 250u); // 1050 → 1300: the copy came first
  EXPECT_EQ(e.windows[1].threads, 6);
  EXPECT_EQ(e.outside_kernels, 2u);
  EXPECT_EQ(e.outside_busy_ns, 10u + 100u);
  EXPECT_EQ(e.kernels, 5u);
  EXPECT_EQ(e.threads_max, 6);
}

TEST(recorder, a_window_without_api_calls_owns_nothing) {
  recorder rec;
  rec.begin("warmup", 0, 0, -1, 11, 100);
  rec.end(10, 200, -1); // no id was handed out inside it
  rec.begin("sample", 0, 0, -1, 11, 300);
  rec.end(12, 400, -1);
  rec.kernel(kernel_at(11, 310, 320));
  const auto e = rec.snapshot();
  EXPECT_EQ(e.windows[0].kernels, 0u);
  EXPECT_EQ(e.windows[1].kernels, 1u);
  EXPECT_EQ(e.windows[0].span_ns(), 0u);
}

TEST(recorder, counts_side_streams_and_work_ending_after_the_window) {
  recorder rec;
  rec.begin("sample", 1, 0, 7, 1, 1000);
  rec.kernel(kernel_at(2, 1100, 1500, 7)); // arrives while open, ends in time
  rec.kernel(kernel_at(3, 1100, 2600, 9)); // arrives while open, ends after the end below
  rec.end(5, 2000, -1);
  rec.kernel(kernel_at(4, 1900, 2300, 9)); // arrives after the end, ends after it
  const auto w = rec.snapshot().windows.at(0);
  EXPECT_EQ(w.off_stream_kernels, 2u);
  EXPECT_EQ(w.after_end_kernels, 2u);
  EXPECT_EQ(w.after_end_max_ns, 600u);
  EXPECT_EQ(w.streams, (std::vector<std::uint32_t>{7, 9}));
  EXPECT_TRUE(w.pending_ends.empty());
}

TEST(recorder, copies_and_memsets_are_device_work_like_kernels) {
  // A call whose only kernel is a token, the answer copied in on a side stream after the window:
  // the copy counts in the span, on its stream and as work that outlived the sample.
  recorder rec;
  rec.begin("sample", 1, 0, 7, 1, 1000);
  rec.kernel(kernel_at(2, 1100, 1110, 7));
  rec.copy({3, 9, 1120, 1900});
  rec.end(5, 2000, -1);
  rec.memset({4, 9, 1950, 2400}); // arrives after the end, ends after it
  rec.copy({6, 7, 5000, 5100});   // outside every window: counted, not summed (the runtime's flush is a memset)
  const auto e = rec.snapshot();
  const auto& w = e.windows.at(0);
  EXPECT_EQ(w.kernels, 1u);
  EXPECT_EQ(w.copies, 1u);
  EXPECT_EQ(w.memsets, 1u);
  EXPECT_EQ(w.busy_ns, 10u + 780u + 450u);
  EXPECT_EQ(w.span_ns(), 1300u); // 1100 → 2400
  EXPECT_EQ(w.off_stream_kernels, 0u);
  EXPECT_EQ(w.off_stream_transfers, 2u);
  EXPECT_EQ(w.after_end_kernels, 0u);
  EXPECT_EQ(w.after_end_transfers, 1u);
  EXPECT_EQ(w.after_end_max_ns, 400u);
  EXPECT_EQ(w.streams, (std::vector<std::uint32_t>{7, 9}));
  EXPECT_EQ(e.outside_busy_ns, 0u);
  EXPECT_EQ(e.copies, 2u);
  // A window whose only work is a copy has a span: the copy's.
  recorder copy_only;
  copy_only.begin("sample", 0, 0, 7, 1, 0);
  copy_only.copy({1, 7, 100, 164});
  copy_only.end(2, 1000, -1);
  EXPECT_EQ(copy_only.snapshot().windows.at(0).span_ns(), 64u);
  const auto doc = parsed(rec)["windows"][0];
  EXPECT_EQ(doc["off_stream_transfers"], 2);
  EXPECT_EQ(doc["after_end_transfers"], 1);
  EXPECT_EQ(doc["span_ns"], 1300);
}

TEST(recorder, the_runtime_hold_kernel_is_not_the_candidates) {
  recorder rec;
  rec.begin("sample", 0, 0, 7, 1, 0);
  rec.kernel(kernel_at(1, 10, 500, 7, "arbiter_hold"));
  rec.kernel(kernel_at(2, 400, 450, 7));
  rec.kernel(kernel_at(3, 460, 470, 7, "arbiter_hold")); // a second one is the candidate's
  rec.end(4, 1000, -1);
  const auto e = rec.snapshot();
  EXPECT_EQ(e.windows[0].harness_kernels, 1u);
  EXPECT_EQ(e.windows[0].kernels, 2u);
  EXPECT_EQ(e.windows[0].span_ns(), 70u);
  EXPECT_EQ(e.kernels, 3u);
  EXPECT_EQ(e.harness_kernels, 1u);
}

TEST(recorder, an_unknown_harness_stream_counts_no_side_stream) {
  recorder rec;
  rec.begin("sample", 0, 0, -1, 1, 0);
  rec.kernel(kernel_at(1, 10, 20, 42));
  rec.end(2, 100, -1);
  EXPECT_EQ(rec.snapshot().windows[0].off_stream_kernels, 0u);
}

TEST(recorder, begin_while_open_closes_the_previous_window) {
  recorder rec;
  rec.begin("case", 0, 0, 7, 1, 100);
  rec.begin("case", 0, 1, 7, 5, 200);
  rec.kernel(kernel_at(4, 110, 120));
  rec.kernel(kernel_at(5, 210, 220));
  const auto e = rec.snapshot();
  ASSERT_EQ(e.windows.size(), 2u);
  EXPECT_FALSE(e.windows[0].open());
  EXPECT_EQ(e.windows[0].end_ns, 200u);
  EXPECT_EQ(e.windows[0].last_correlation, 4u);
  EXPECT_EQ(e.windows[0].kernels, 1u);
  EXPECT_TRUE(e.windows[1].open());
  EXPECT_EQ(e.windows[1].kernels, 1u);
}

TEST(recorder, launches_outside_windows_and_graph_launches) {
  recorder rec;
  rec.launch(false);
  rec.launch(true);
  rec.begin("sample", 0, 0, 7, 1, 0);
  rec.launch(true);
  rec.end(3, 10, -1);
  rec.graph_created();
  rec.graph_instantiated();
  rec.capture_begun();
  const auto e = rec.snapshot();
  EXPECT_EQ(e.graphs_launched, 2u);
  EXPECT_EQ(e.windows[0].launches, 1u);
  EXPECT_EQ(e.windows[0].graph_launches, 1u);
  EXPECT_EQ(e.graphs_created, 1u);
  EXPECT_EQ(e.graphs_instantiated, 1u);
  EXPECT_EQ(e.captures, 1u);
}

TEST(recorder, caps_the_kernel_list_and_the_label) {
  recorder rec;
  rec.begin(std::string(200, 'x'), 0, 0, 7, 1, 0);
  for (std::uint32_t idx = 0; idx < k_max_kernel_details + 3; ++idx) rec.kernel(kernel_at(1, idx, idx + 1));
  const auto e = rec.snapshot();
  EXPECT_EQ(e.kernel_details.size(), k_max_kernel_details);
  EXPECT_TRUE(e.kernels_truncated);
  EXPECT_EQ(e.kernels, k_max_kernel_details + 3);
  EXPECT_EQ(e.windows[0].kernels, k_max_kernel_details + 3);
  EXPECT_EQ(e.windows[0].label.size(), k_max_label);
}

TEST(recorder, dirty_until_written) {
  recorder rec;
  EXPECT_FALSE(rec.dirty());
  rec.begin("case", 0, 0, 7, 1, 0);
  EXPECT_TRUE(rec.dirty());
  rec.mark_written();
  EXPECT_FALSE(rec.dirty());
  rec.kernel(kernel_at(1, 0, 1));
  EXPECT_TRUE(rec.dirty());
}

TEST(recorder, the_callback_apis_count_is_kept_apart_from_the_records) {
  recorder rec;
  rec.begin("sample", 0, 0, 7, 11, 1000);
  rec.api_returned(12, api_work::kernel_launch);
  rec.api_returned(13, api_work::kernel_launch);
  rec.api_returned(14, api_work::transfer);
  rec.capture_begun();
  rec.end(15, 2000, 5);
  rec.api_returned(16, api_work::kernel_launch); // outside every window: not counted
  rec.kernel(kernel_at(12, 1100, 1200));         // one record for two launches: one was unrecorded
  const auto e = rec.snapshot();
  EXPECT_EQ(e.windows[0].api_kernel_launches, 2u);
  EXPECT_EQ(e.windows[0].api_transfers, 1u);
  EXPECT_EQ(e.windows[0].captures, 1u);
  EXPECT_EQ(e.windows[0].kernels, 1u);
  const auto doc = parsed(rec);
  EXPECT_EQ(doc["windows"][0]["api_kernel_launches"], 2);
  EXPECT_EQ(doc["windows"][0]["api_transfers"], 1);
  EXPECT_EQ(doc["windows"][0]["captures"], 1);
}

TEST(recorder, kernels_outside_windows_are_counted_by_the_window_before_them) {
  recorder rec;
  rec.kernel(kernel_at(3, 10, 20)); // before any window
  rec.begin("sample", 2, 0, 7, 11, 1000);
  rec.end(15, 2000, 5);
  rec.kernel(kernel_at(17, 2100, 2600)); // between sample 0 and sample 1 of shape 2
  rec.kernel(kernel_at(18, 2700, 2800));
  rec.begin("sample", 2, 1, 7, 20, 3000);
  rec.end(25, 4000, 5);
  const auto e = rec.snapshot();
  EXPECT_EQ(e.outside_kernels, 3u);
  ASSERT_EQ(e.outside_gaps.size(), 2u);
  EXPECT_EQ(e.outside_gaps[0].label, "");
  EXPECT_EQ(e.outside_gaps[0].group, -1);
  EXPECT_EQ(e.outside_gaps[1].label, "sample");
  EXPECT_EQ(e.outside_gaps[1].group, 2);
  EXPECT_EQ(e.outside_gaps[1].kernels, 2u);
  EXPECT_EQ(e.outside_gaps[1].busy_ns, 600u);
  const auto doc = parsed(rec);
  EXPECT_EQ(doc["outside_windows"]["kernels"], 3);
  EXPECT_EQ(doc["outside_windows"]["after"][1],
            nlohmann::json::parse(R"({"label": "sample", "group": 2, "kernels": 2, "busy_ns": 600})"));
}

TEST(recorder, the_witness_notes_disabled_callbacks_and_forged_markers) {
  recorder rec;
  rec.witness_check({}, "begin");
  EXPECT_FALSE(rec.dirty());
  rec.witness_check({"cuLaunchKernel", "cuMemsetD8Async"}, "end");
  for (int i = 0; i < 10; ++i) rec.witness_check({"cuLaunchKernel"}, "begin");
  rec.forged_marker();
  rec.forged_marker();
  rec.refused_claim();
  const auto e = rec.snapshot();
  EXPECT_EQ(e.witness.checks, 12u);
  EXPECT_EQ(e.witness.callbacks_disabled, 12u);
  EXPECT_EQ(e.witness.notes.size(), k_max_witness_notes);
  EXPECT_EQ(e.witness.notes[1], "cuMemsetD8Async at end (check 2)");
  const auto doc = parsed(rec);
  EXPECT_EQ(doc["witness"]["forged_markers"], 2);
  EXPECT_EQ(doc["witness"]["refused_claims"], 1);
  EXPECT_EQ(doc["witness"]["callbacks_disabled"], 12);
}

TEST(names, demangles_and_caps) {
  EXPECT_EQ(demangle("_Z6matmulPKfS0_Pfi"), "matmul(float const*, float const*, float*, int)");
  EXPECT_EQ(demangle("triton_poi_fused_add_0"), "triton_poi_fused_add_0");
  EXPECT_EQ(demangle(nullptr), "");
  EXPECT_EQ(demangle("abcdefghij", 8), "abcde...");
}

TEST(evidence_json, has_the_documented_fields) {
  recorder rec;
  rec.context_created();
  rec.stream_created(13);
  rec.module_loaded();
  rec.dropped(2);
  rec.error("cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY2): CUPTI error 1");
  rec.begin("sample", 2, 4, 7, 1, 100);
  rec.launch(false);
  rec.kernel(kernel_at(1, 110, 150, 7));
  rec.end(2, 200, 9);
  const auto doc = parsed(rec);
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["contexts"], 1);
  EXPECT_EQ(doc["streams_created"], nlohmann::json::array({13}));
  EXPECT_EQ(doc["modules_loaded"], 1);
  for (const char* key : {"created", "instantiated", "launched", "captures"}) EXPECT_EQ(doc["graphs"][key], 0) << key;
  EXPECT_EQ(doc["totals"]["kernels"], 1);
  EXPECT_EQ(doc["totals"]["dropped_records"], 2);
  EXPECT_EQ(doc["threads_max"], 9);
  EXPECT_EQ(doc["kernels_truncated"], false);
  EXPECT_EQ(doc["errors"].size(), 1u);
  const auto& w = doc["windows"][0];
  EXPECT_EQ(w["label"], "sample");
  EXPECT_EQ(w["group"], 2);
  EXPECT_EQ(w["index"], 4);
  EXPECT_EQ(w["span_ns"], 40);
  EXPECT_EQ(w["busy_ns"], 40);
  EXPECT_EQ(w["first_start_ns"], 110);
  EXPECT_EQ(w["last_end_ns"], 150);
  EXPECT_EQ(w["harness_stream"], 7);
  EXPECT_EQ(w["streams"], nlohmann::json::array({7}));
  for (const char* key : {"begin_ns", "end_ns", "launches", "kernels", "copies", "memsets", "off_stream_kernels",
                          "off_stream_transfers", "after_end_kernels", "after_end_transfers", "threads"})
    EXPECT_TRUE(w.contains(key)) << key;
  const auto& k = doc["kernels"][0];
  EXPECT_EQ(k["name"], "matmul(float const*, float const*, float*, int)");
  EXPECT_EQ(k["grid"], nlohmann::json::array({128, 1, 1}));
  EXPECT_EQ(k["window"], 0);
  EXPECT_EQ(doc["outside_windows"]["kernels"], 0);
}

TEST(evidence_json, unknown_harness_stream_is_null_and_bad_utf8_survives) {
  recorder rec;
  rec.begin("sample", 0, 0, -1, 1, 0);
  rec.kernel(kernel_at(1, 0, 1, 7, "bad\xff name"));
  const auto doc = parsed(rec);
  EXPECT_TRUE(doc["windows"][0]["harness_stream"].is_null());
  EXPECT_EQ(doc["windows"][0]["open"], true);
  EXPECT_EQ(doc["kernels"].size(), 1u);
}

TEST(evidence_json, writes_atomically) {
  const auto dir = std::filesystem::temp_directory_path() / ("arbiter_probe_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  EXPECT_TRUE(write_atomically(dir / "probe.json", "{\"version\": 1}"));
  std::ifstream in(dir / "probe.json");
  EXPECT_EQ(nlohmann::json::parse(in)["version"], 1);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1); // no temporary left
  EXPECT_FALSE(write_atomically(dir / "missing" / "probe.json", "{}"));
  std::filesystem::remove_all(dir);
}

TEST(signature, the_mac_depends_on_key_and_text) {
  const std::string key = new_evidence_key();
  ASSERT_EQ(key.size(), 64u);
  EXPECT_NE(new_evidence_key(), key); // fresh per process
  const std::string mac = evidence_mac(key, "{\"version\": 1}");
  EXPECT_EQ(mac.size(), 64u);
  EXPECT_EQ(evidence_mac(key, "{\"version\": 1}"), mac);
  EXPECT_NE(evidence_mac(key, "{\"version\": 1} "), mac);
  EXPECT_NE(evidence_mac(new_evidence_key(), "{\"version\": 1}"), mac);
  EXPECT_EQ(evidence_mac("not hex", "text"), "");
}

TEST(signature, the_key_file_is_gone_once_taken) {
  const auto file = std::filesystem::temp_directory_path() / ("arbiter_probe_key_" + std::to_string(::getpid()));
  std::ofstream(file) << "00ff10\n";
  EXPECT_EQ(take_evidence_key(file), "00ff10");
  EXPECT_FALSE(std::filesystem::exists(file));
  EXPECT_EQ(take_evidence_key(file), std::nullopt); // a second read finds nothing
  std::ofstream(file) << "zz\n";
  EXPECT_EQ(take_evidence_key(file), std::nullopt); // not a key: refused (and removed)
  EXPECT_EQ(mac_path("/x/probe.json"), std::filesystem::path("/x/probe.json.mac"));
}

} // namespace
} // namespace arbiter::probe
