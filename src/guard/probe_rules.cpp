// Probe rules: the GPU's own account of each timed call → catalog patterns (docs/guard.md).
#include "arbiter/guard/probe_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace arbiter::guard {

namespace {

finding probe_finding(std::string pattern, severity level, std::string evidence) {
  return {std::move(pattern), level, std::move(evidence), "probe"};
}

// T1: work the harness stream's events do not bracket. Side streams are a rule violation unless
// allowed; work that outlives the sample's device synchronisation is never legitimate.
void stream_findings(const probe_evidence& e, const probe_shape& s, std::vector<finding>& out) {
  if (s.samples_off_stream > 0 && !e.extra_streams)
    out.push_back(probe_finding("T1", severity::reject,
                                fmt::format("shape {}: {} kernels, copies or memsets on streams other than the harness's "
                                            "in {} of {} timed calls",
                                            s.shape, s.off_stream_work, s.samples_off_stream, s.samples)));
  if (s.samples_escaping > 0)
    out.push_back(probe_finding("T1", severity::flag,
                                fmt::format("shape {}: device work still ran after {} of {} timed calls had been waited for "
                                            "(up to {:.1f} µs later)",
                                            s.shape, s.samples_escaping, s.samples, static_cast<double>(s.escape_max_ns) / 1e3)));
}

// T5: correct outputs with no GPU work in any timed call, while the correctness calls had some:
// the work was done ahead (or is deferred) and the timer sees a cached answer.
void idle_findings(const probe_evidence& e, const probe_shape& s, std::vector<finding>& out) {
  if (!e.complete || s.samples == 0 || s.samples_without_kernels < s.samples || s.cases_with_kernels == 0) return;
  out.push_back(probe_finding("T5", severity::flag,
                              fmt::format("shape {}: no kernel ran in any of {} timed calls, while {} of {} correctness "
                                          "calls ran kernels",
                                          s.shape, s.samples, s.cases_with_kernels, s.cases)));
}

// T4: the two clocks of the timed calls disagree, either way. A timer short of the span missed work
// the GPU ran; a held timer long past the span timed work the probe did not see (the score then
// takes the timer: the larger of two disagreeing witnesses).
void timing_findings(const probe_shape& s, std::vector<finding>& out) {
  if (!s.span_median_ms || !s.reported_median_ms) return;
  const auto agreement = compare_clocks(*s.span_median_ms, *s.reported_median_ms, s.rel_noise, s.held);
  if (agreement == clock_agreement::timer_short)
    out.push_back(probe_finding("T4", severity::flag,
                                fmt::format("shape {}: the timer reports {:.4f} ms, the GPU ran the call's kernels for "
                                            "{:.4f} ms (median of the timed calls)",
                                            s.shape, *s.reported_median_ms, *s.span_median_ms)));
  else if (agreement == clock_agreement::timer_long)
    out.push_back(probe_finding("T4", severity::flag,
                                fmt::format("shape {}: the timer reports {:.4f} ms, the probe saw {:.4f} ms of device work "
                                            "(median of the timed calls, launch allowance {:.3f} ms): work the probe "
                                            "did not see",
                                            s.shape, *s.reported_median_ms, *s.span_median_ms, k_launch_allowance_ms)));
}

// The probe's bookkeeping against the runtime's: one "sample" window per sample the record
// reports, indices 0..n-1 (T4); timed work outside every window (T1); timed calls whose launches
// the callback API saw returned but whose kernel records are missing (H3: the activity record was
// switched off); timed calls with copies or memsets only where the reference runs kernels (T5).
void bookkeeping_findings(const probe_evidence& e, const probe_shape& s, std::vector<finding>& out) {
  if (s.expected_samples &&
      (s.sample_windows != *s.expected_samples || s.sample_indices_missing > 0 || s.sample_indices_extra > 0))
    out.push_back(probe_finding("T4", severity::flag,
                                fmt::format("shape {}: the runtime timed {} samples, the probe kept {} sample windows "
                                            "({} indices missing, {} out of range or repeated)",
                                            s.shape, *s.expected_samples, s.sample_windows, s.sample_indices_missing,
                                            s.sample_indices_extra)));
  if (s.outside_timed_kernels > k_outside_kernels_allowed && 2 * s.outside_timed_kernels >= static_cast<std::uint64_t>(s.samples))
    out.push_back(probe_finding("T1", severity::flag,
                                fmt::format("shape {}: {} kernels ({:.1f} µs) ran outside every window between its {} "
                                            "timed calls",
                                            s.shape, s.outside_timed_kernels, static_cast<double>(s.outside_timed_busy_ns) / 1e3,
                                            s.samples)));
  if (!e.complete) return;
  if (s.samples_missing_records > 0)
    out.push_back(
        probe_finding("H3", severity::reject,
                      fmt::format("shape {}: in {} of {} timed calls the driver returned {} kernel launches "
                                  "that left no kernel record ({} calls with launches or copies and no "
                                  "record at all): the probe's activity record was switched off",
                                  s.shape, s.samples_missing_records, s.samples, s.launches_unrecorded, s.samples_unrecorded)));
  if (s.reference_runs_kernels && s.samples > 0 && 2 * s.samples_transfer_only >= s.samples)
    out.push_back(probe_finding("T5", severity::flag,
                                fmt::format("shape {}: {} of {} timed calls ran copies or memsets and no kernel, while "
                                            "the reference's timed calls run kernels",
                                            s.shape, s.samples_transfer_only, s.samples)));
}

// H3: the witness itself was reached: markers without the run's token, claims of the token after
// the runtime's, callbacks found disabled, a window table filled past its room.
void witness_findings(const probe_witness& w, std::vector<finding>& out) {
  if (w.forged_markers > 0 || w.refused_claims > 0)
    out.push_back(probe_finding("H3", severity::reject,
                                fmt::format("{} probe markers without the run's token were ignored, {} claims of the "
                                            "token after the runtime's were refused",
                                            w.forged_markers, w.refused_claims)));
  if (w.callbacks_disabled > 0)
    out.push_back(probe_finding(
        "H3", severity::reject,
        fmt::format("the probe found {} of its callbacks disabled at its markers: {}", w.callbacks_disabled, w.notes)));
  if (w.windows_dropped > 0)
    out.push_back(probe_finding("T4", severity::flag,
                                fmt::format("the probe's window table overflowed: {} windows were not kept", w.windows_dropped)));
}

// B1: the rule against library-backed ops, with the GPU's proof: whatever road reached the library
// (an aten overload, operator.matmul, an extension calling cuBLAS), its kernels carry its names.
void library_findings(const probe_evidence& e, std::vector<finding>& out) {
  if (e.libraries || e.library_kernels.empty()) return;
  std::string names;
  for (const auto& name : e.library_kernels) names += (names.empty() ? "" : ", ") + name.substr(0, 96);
  out.push_back(
      probe_finding("B1", severity::reject, "the calls launched vendor-library kernels; [rules] libraries = false: " + names));
}

void launch_findings(const probe_evidence& e, std::vector<finding>& out) {
  if (e.graph_launches > 0 && !e.cuda_graphs)
    out.push_back(probe_finding("T8", severity::reject,
                                fmt::format("{} CUDA graph launches where the problem does not allow graphs", e.graph_launches)));
  if (e.max_launches <= 0) return;
  for (const auto& s : e.shapes)
    if (s.max_kernels_per_call > static_cast<std::uint64_t>(e.max_launches)) {
      out.push_back(probe_finding("T8", severity::reject,
                                  fmt::format("shape {}: {} kernels in one call, the problem allows {}", s.shape,
                                              s.max_kernels_per_call, e.max_launches)));
      return;
    }
}

} // namespace

bool library_kernel(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // PyTorch's own GEMMs behind its private ops count too: tinygemm (_weight_int4pack_mm), the
  // int8 weight-only GEMV (_weight_int8pack_mm), FBGEMM's quantised GEMMs.
  for (std::string_view marker :
       {"nvjet", "xmma", "cutlass", "cublas", "cudnn", "pytorch_flash::", "gemv2t_kernel", "gemv2n_kernel", "gemmsn_",
        "gemmk1_kernel", "splitkreduce_kernel", "at::native::tinygemm", "at::native::weight_int8pack_mm_kernel", "fbgemm_gpu::"})
    if (lower.find(marker) != std::string::npos) return true;
  // cuBLAS's architecture-named kernels: ampere_bf16_s16816gemm_…, sm80_…gemm…, volta_sgemm_…
  for (std::string_view arch : {"ampere_", "volta_", "turing_", "maxwell_", "sm80_", "sm86_", "sm89_", "sm90_", "sm100_"})
    if (lower.rfind(arch, 0) == 0 && lower.find("gemm") != std::string::npos) return true;
  return false;
}

clock_agreement compare_clocks(double span_ms, double timer_ms, double rel_noise, bool held) {
  const double tolerance_ms =
      std::max({k_probe_clock_tolerance * span_ms, k_probe_clock_noise_factor * rel_noise * span_ms, k_probe_clock_floor_ms});
  if (span_ms - timer_ms > tolerance_ms) return clock_agreement::timer_short;
  if (held && timer_ms - span_ms > tolerance_ms + k_launch_allowance_ms) return clock_agreement::timer_long;
  return clock_agreement::agree;
}

bool timer_misses_work(double span_ms, double reported_ms, double rel_noise) {
  return compare_clocks(span_ms, reported_ms, rel_noise, false) == clock_agreement::timer_short;
}

void probe_findings(const probe_evidence& e, std::vector<finding>& out) {
  if (!e.forged.empty()) {
    out.push_back(probe_finding("H3", severity::reject, "the probe's evidence was forged: " + e.forged));
    return;
  }
  if (e.expected && !e.present) {
    // The probe writes at exit; a run that finished without it left through os._exit or a signal.
    out.push_back(probe_finding("H2", severity::reject,
                                "the process finished its calls but the probe's exit writer never ran: " + e.missing));
    return;
  }
  if (!e.present) return;
  witness_findings(e.witness, out);
  for (const auto& s : e.shapes) {
    stream_findings(e, s, out);
    idle_findings(e, s, out);
    timing_findings(s, out);
    bookkeeping_findings(e, s, out);
  }
  launch_findings(e, out);
  library_findings(e, out);
}

} // namespace arbiter::guard
