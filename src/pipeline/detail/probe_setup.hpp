#pragma once
/// Whether a runner process gets the CUPTI probe (docs/probe.md): on cuda, when
/// libarbiter_probe.so lies beside the runtime library (or $ARBITER_PROBE_LIB names it) and loads.
#include "arbiter/sandbox/process.hpp"
#include "detail/jobs.hpp"

#include <filesystem>
#include <string>

namespace arbiter::pipeline::detail {

struct probe_setup {
  std::filesystem::path library; ///< absolute; empty when the probe is not used
  std::filesystem::path out;     ///< where the probe writes its evidence (ARBITER_PROBE_OUT)
  std::string status;            ///< "" (not a cuda run), "enabled" or "unavailable: <why>"

  bool enabled() const { return !library.empty(); }
};

/// The probe for a process on ctx.device writing its evidence to out, when asked for:
/// $ARBITER_PROBE=on (the library beside the runtime) or $ARBITER_PROBE_LIB=<path> ("" / "off":
/// without). The library is loaded once into arbiter (and
/// unloaded) to prove it resolves its CUPTI: a probe that cannot load must not break cuInit.
probe_setup probe_for(const job_context& ctx, const std::filesystem::path& out);

/// Adds CUDA_INJECTION64_PATH and ARBITER_PROBE_OUT to the spec's environment and, when sandboxed,
/// the library's folder to the paths bound back read-only. Nothing when the probe is not enabled.
void apply_probe(const probe_setup& probe, sandbox::process_spec& spec);

} // namespace arbiter::pipeline::detail
