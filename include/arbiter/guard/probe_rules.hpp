#pragma once
/// Rules over the CUPTI probe's evidence (docs/probe.md, docs/guard.md "Probe findings"): what ran
/// inside the timed samples of each shape, graphs, launch counts, and the probe's time against
/// the runtime's. The pipeline reduces probe.json to these facts (src/pipeline/probe_evidence.cpp).
#include "arbiter/guard/finding.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arbiter::guard {

/// A kernel, copy or memset that ends this long after its sample window closed escaped the timed
/// span; less is left to the skew of CUPTI's timestamps.
inline constexpr std::uint64_t k_escape_slack_ns = 10'000;

/// One shape's windows ("case": a correctness call, "sample"/"latency": a timed call).
struct probe_shape {
  std::string shape;
  int cases = 0;
  int cases_with_kernels = 0;
  int samples = 0; ///< timed windows, "sample" and "latency"
  int samples_without_kernels = 0;
  int samples_off_stream = 0; ///< with kernels, copies or memsets on a stream other than the harness's
  std::uint64_t off_stream_work = 0; ///< how many of those
  int samples_escaping = 0;   ///< with device work ending more than k_escape_slack_ns after the window
  std::uint64_t escape_max_ns = 0;
  std::uint64_t max_kernels_per_call = 0; ///< over case and timed windows
  std::optional<double> span_median_ms;   ///< median over "sample" windows of first start → last end
  std::optional<double> reported_median_ms; ///< the runtime's median_ms for the shape
  double rel_noise = 0;                     ///< the runtime's, for the cross-check's tolerance
  std::optional<double> host_median_ms;     ///< the runtime's host latency, when it reports one (shown only)
};

struct probe_evidence {
  bool expected = false;  ///< the probe was loaded into the candidate process
  bool present = false;   ///< its evidence file was read
  std::string missing;    ///< why not, when expected and not present
  std::string forged;     ///< why an evidence file there is not trusted (unsigned, signature mismatch)
  bool complete = true;   ///< no records dropped: absence of kernels means something
  std::vector<probe_shape> shapes;
  std::uint64_t graph_launches = 0;
  /// Distinct names of vendor-library kernels (library_kernel) the solution's calls launched, the
  /// first k_library_names of them; from the probe's per-kernel records (its first 4,096 kernels).
  std::vector<std::string> library_kernels;
  // The problem's rules (problem.toml [rules]).
  bool extra_streams = false;
  bool cuda_graphs = false;
  bool libraries = false;
  int max_launches = 0;
};

/// How many library kernel names the evidence keeps.
inline constexpr std::size_t k_library_names = 4;

/// Whether a kernel's (demangled) name is a vendor library's: cuBLAS/cuBLASLt (nvjet, xmma,
/// ampere_/sm80_… gemm, gemv2T/gemmSN/gemmk1/splitKreduce), cuDNN, CUTLASS (PyTorch's memory-
/// efficient attention included), PyTorch's bundled FlashAttention. A name of the solution's own
/// kernels counts only if it borrows one of these.
bool library_kernel(std::string_view name);

/// Whether the probe's span (what ran on the GPU) exceeds the runtime's reported time by more than
/// max(5 %, 3 × rel_noise) of the span and more than 2 µs: the timer missed work it should cover.
bool timer_misses_work(double span_ms, double reported_ms, double rel_noise);

/// Findings from the probe's evidence, appended to out.
void probe_findings(const probe_evidence& evidence, std::vector<finding>& out);

} // namespace arbiter::guard
