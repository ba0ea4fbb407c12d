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
                                            "in {} of {} timed calls", s.shape, s.off_stream_work, s.samples_off_stream,
                                            s.samples)));
  if (s.samples_escaping > 0)
    out.push_back(probe_finding("T1", severity::flag,
                                fmt::format("shape {}: device work still ran after {} of {} timed calls had been waited for "
                                            "(up to {:.1f} µs later)", s.shape, s.samples_escaping, s.samples,
                                            static_cast<double>(s.escape_max_ns) / 1e3)));
}

// T5: correct outputs with no GPU work in any timed call, while the correctness calls had some:
// the work was done ahead (or is deferred) and the timer sees a cached answer.
void idle_findings(const probe_evidence& e, const probe_shape& s, std::vector<finding>& out) {
  if (!e.complete || s.samples == 0 || s.samples_without_kernels < s.samples || s.cases_with_kernels == 0) return;
  out.push_back(probe_finding("T5", severity::flag,
                              fmt::format("shape {}: no kernel ran in any of {} timed calls, while {} of {} correctness "
                                          "calls ran kernels", s.shape, s.samples, s.cases_with_kernels, s.cases)));
}

void timing_findings(const probe_shape& s, std::vector<finding>& out) {
  if (!s.span_median_ms || !s.reported_median_ms) return;
  if (!timer_misses_work(*s.span_median_ms, *s.reported_median_ms, s.rel_noise)) return;
  out.push_back(probe_finding("T4", severity::flag,
                              fmt::format("shape {}: the timer reports {:.4f} ms, the GPU ran the call's kernels for "
                                          "{:.4f} ms (median of the timed calls)", s.shape, *s.reported_median_ms,
                                          *s.span_median_ms)));
}

// B1: the rule against library-backed ops, with the GPU's proof: whatever road reached the library
// (an aten overload, operator.matmul, an extension calling cuBLAS), its kernels carry its names.
void library_findings(const probe_evidence& e, std::vector<finding>& out) {
  if (e.libraries || e.library_kernels.empty()) return;
  std::string names;
  for (const auto& name : e.library_kernels) names += (names.empty() ? "" : ", ") + name.substr(0, 96);
  out.push_back(probe_finding("B1", severity::reject,
                              "the calls launched vendor-library kernels; [rules] libraries = false: " + names));
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
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // PyTorch's own GEMMs behind its private ops count too: tinygemm (_weight_int4pack_mm), the
  // int8 weight-only GEMV (_weight_int8pack_mm), FBGEMM's quantised GEMMs.
  for (std::string_view marker : {"nvjet", "xmma", "cutlass", "cublas", "cudnn", "pytorch_flash::", "gemv2t_kernel",
                                  "gemv2n_kernel", "gemmsn_", "gemmk1_kernel", "splitkreduce_kernel", "at::native::tinygemm",
                                  "at::native::weight_int8pack_mm_kernel", "fbgemm_gpu::"})
    if (lower.find(marker) != std::string::npos) return true;
  // cuBLAS's architecture-named kernels: ampere_bf16_s16816gemm_…, sm80_…gemm…, volta_sgemm_…
  for (std::string_view arch : {"ampere_", "volta_", "turing_", "maxwell_", "sm80_", "sm86_", "sm89_", "sm90_", "sm100_"})
    if (lower.rfind(arch, 0) == 0 && lower.find("gemm") != std::string::npos) return true;
  return false;
}

bool timer_misses_work(double span_ms, double reported_ms, double rel_noise) {
  const double missed_ms = span_ms - reported_ms;
  const double tolerance_ms = std::max({0.05 * span_ms, 3 * rel_noise * span_ms, 0.002});
  return missed_ms > tolerance_ms;
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
  for (const auto& s : e.shapes) {
    stream_findings(e, s, out);
    idle_findings(e, s, out);
    timing_findings(s, out);
  }
  launch_findings(e, out);
  library_findings(e, out);
}

} // namespace arbiter::guard
