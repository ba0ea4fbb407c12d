#pragma once
/// Rules over the CUPTI probe's evidence (docs/probe.md, docs/guard.md "Probe findings"): what ran
/// inside the timed samples of each shape, graphs, launch counts, and the probe's time against
/// the runtime's. The pipeline reduces probe.json to these facts (src/judge/probe_evidence.cpp).
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

/// The two clocks of a timed call, the runtime's timer (CUDA events) and the probe's span (CUPTI),
/// agree within the larger of k_probe_clock_tolerance of the span, k_probe_clock_noise_factor times the timer's
/// relative noise of the span, and k_probe_clock_floor_ms. A timer above the span is expected by the
/// launch allowance too: with the stream held, the events bracket the span and the few µs between
/// the hold's end and the first kernel (2.6 µs on H100 and H200 for one-kernel calls).
inline constexpr double k_probe_clock_tolerance = 0.05;
inline constexpr double k_probe_clock_noise_factor = 3;
inline constexpr double k_probe_clock_floor_ms = 0.002;
inline constexpr double k_launch_allowance_ms = 0.010;

enum class clock_agreement : std::uint8_t {
  agree,
  timer_short, ///< the timer reports less than the GPU ran: it missed work
  timer_long,  ///< the timer reports more than the probe saw: the probe missed work
};

/// How the timer's median and the span's median of one shape compare. held: every sample the timer
/// kept ran behind the stream hold (the record's held_samples); without it the events hold the
/// host's launch time, and a long timer says nothing.
clock_agreement compare_clocks(double span_ms, double timer_ms, double rel_noise, bool held);

/// Windows outside which a shape's timed calls may leave this many kernels without a finding: the
/// timed captures clone a few outputs after their calls (a non-contiguous one by a kernel).
inline constexpr std::uint64_t k_outside_kernels_allowed = 8;

/// One shape's windows ("case": a correctness call, "sample"/"latency": a timed call).
struct probe_shape {
  std::string shape;
  int cases = 0;
  int cases_with_kernels = 0;
  int samples = 0; ///< timed windows, "sample" and "latency"
  int samples_without_kernels = 0;
  int samples_off_stream = 0;        ///< with kernels, copies or memsets on a stream other than the harness's
  std::uint64_t off_stream_work = 0; ///< how many of those
  int samples_escaping = 0;          ///< with device work ending more than k_escape_slack_ns after the window
  std::uint64_t escape_max_ns = 0;
  std::uint64_t max_kernels_per_call = 0;   ///< over case and timed windows
  std::optional<double> span_median_ms;     ///< median over "sample" windows of first start → last end
  std::optional<double> reported_median_ms; ///< the runtime's median_ms for the shape
  double rel_noise = 0;                     ///< the runtime's, for the cross-check's tolerance
  std::optional<double> host_median_ms;     ///< the runtime's host latency, when it reports one (shown only)
  bool held = false;                        ///< every kept sample ran behind the stream hold (compare_clocks)
  // The probe's bookkeeping against the runtime's record (absent fields: an older probe, no check).
  std::optional<std::int64_t> expected_samples; ///< sample windows the record says it timed (one per sample)
  int sample_windows = 0;                       ///< "sample" windows the probe kept
  int sample_indices_missing = 0;               ///< indices 0..expected-1 without a window
  int sample_indices_extra = 0;                 ///< windows with an index outside that range or seen twice
  std::uint64_t outside_timed_kernels = 0;      ///< kernels outside every window, after a timed window of the shape
  std::uint64_t outside_timed_busy_ns = 0;
  int samples_missing_records = 0;       ///< timed windows with fewer kernel records than launches returned
  int samples_unrecorded = 0;            ///< of those, with launches or copies but no record at all
  std::uint64_t launches_unrecorded = 0; ///< launches without a kernel record, summed
  int samples_transfer_only = 0;         ///< timed windows with copies or memsets and no kernel
  bool reference_runs_kernels = false;   ///< the reference's timed calls of the shape launch kernels
};

/// The probe's own account of its integrity (docs/probe.md, "The witness").
struct probe_witness {
  std::uint64_t forged_markers = 0;     ///< markers without the run's token, ignored
  std::uint64_t refused_claims = 0;     ///< claims of the token after the runtime's
  std::uint64_t callbacks_disabled = 0; ///< callbacks found disabled at a marker
  std::string notes;                    ///< which, where
  std::uint64_t windows_dropped = 0;    ///< windows the probe's table had no room for
};

struct probe_evidence {
  bool expected = false; ///< the probe was loaded into the candidate process
  bool present = false;  ///< its evidence file was read
  std::string missing;   ///< why not, when expected and not present
  std::string forged;    ///< why an evidence file there is not trusted (unsigned, signature mismatch)
  bool complete = true;  ///< no records dropped: absence of kernels means something
  std::vector<probe_shape> shapes;
  probe_witness witness;
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

/// Whether the probe's span (what ran on the GPU) exceeds the runtime's reported time beyond the
/// clocks' tolerance (compare_clocks: timer_short): the timer missed work it should cover.
bool timer_misses_work(double span_ms, double reported_ms, double rel_noise);

/// Findings from the probe's evidence, appended to out.
void probe_findings(const probe_evidence& evidence, std::vector<finding>& out);

} // namespace arbiter::guard
