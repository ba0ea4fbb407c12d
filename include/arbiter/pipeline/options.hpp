#pragma once
/// What `arbiter eval` was asked to do.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace arbiter::pipeline {

struct timing_options {
  int warmup_calls = 3;
  std::int64_t min_samples = 10;
  std::int64_t max_samples = 1000;
  double min_time_s = 0.1;
  double max_time_s = 2.0;
  double target_rel_noise = 0.01;
  /// Warm-up by time on cuda (runtime stop_rule::warmup_time_s): paced and rested like the samples,
  /// so that the GPU has settled into the clock it holds under them before sampling
  /// (docs/measurement.md, "Sampling"). Not on cpu.
  double warmup_time_s = 0.3;
  /// The least sampling time on cuda, where it replaces a shorter min_time_s: in the sustained
  /// state the clock wanders over tens of milliseconds, so a median of 0.1 s of samples of an
  /// 8192³ GEMM moved 2.3% between processes on an H200 (docs/measurement.md, "Sampling").
  double cuda_min_time_s = 0.5;
  /// The rest after each paced call on cuda (runtime stop_rule::rest_ratio), as a multiple of the
  /// call's wall time: at two-thirds duty a kernel that back-to-back calls hold at the power cap
  /// keeps a steadier clock (the multi-kernel workload's spread across processes on an H200: 0.3%
  /// against 1.2–2.1% without; docs/measurement.md, "Sampling"). Not on cpu.
  double cuda_rest_ratio = 0.5;
};

/// When `arbiter eval` measures the hardware's peaks first (docs/measurement.md): only ever where
/// none are stored for its fingerprint; by default only on cuda, so that CPU runs and CI stay fast.
enum class calibration : std::uint8_t { cuda_only, yes, no };

struct eval_options {
  std::filesystem::path suite_dir;
  std::filesystem::path solutions_dir;
  std::string db = "arbiter.db";
  /// Runs, references and each evaluation's artifacts (bundles, events, logs); empty = "<db>.d".
  /// A tmpfs here keeps the bundles in memory while the database stays where it is.
  std::filesystem::path data_dir;
  std::vector<std::string> models;   ///< empty = all
  std::vector<std::string> problems; ///< empty = all
  std::string device;                ///< "cpu" | "cuda"; empty = cuda when a GPU is present
  std::string campaign;              ///< empty = "<suite>/<device>/<hardware fingerprint prefix>"
  std::string python;                ///< empty = doctor::find_python()
  int num_seeds = 3;
  double timeout_s = 900;            ///< per process, wall clock
  std::uint64_t weights_seed = 42;
  timing_options timing;
  /// Candidate code (runs and builds) isolated: unprivileged user, no network, the grader's files
  /// hidden (docs/protocol.md, "Sandbox"). false = --no-sandbox, for development only.
  bool sandbox = true;
  /// --no-static-rules: an audit of the run-time checks. The static facts are still computed and
  /// stored, but no finding comes from them, so every verdict rests on what the run showed and the
  /// witnesses outside the candidate's process (docs/guard.md, "Threat model"). Its campaign is
  /// named apart (".../static-rules-off") and every evaluation records `static_rules: "off"`.
  bool static_rules = true;
  calibration calibrate = calibration::cuda_only; ///< --calibrate: yes, --no-calibrate: no
  /// --keep-outputs: keep every tensor bundle; by default bundles of 16 MiB and more are removed
  /// once judged (src/pipeline/detail/prune.hpp).
  bool keep_outputs = false;
  /// --prestart: candidate processes of the same problem's next evaluations started this many
  /// evaluations ahead, waiting behind their gates with torch imported and the CUDA context made
  /// (docs/measurement.md, "Throughput"); -1 = 2 on cuda, 0 on cpu (where a second interpreter's
  /// start-up would share the CPU that the timed candidate is measured on).
  int prestart = -1;
  /// --prebuild: the build stage (src/pipeline/detail/prebuild.hpp) "on" (candidates wait for their
  /// builds), "off", or "auto": on cuda the stage, and the wait where the Python environment's torch
  /// reuses a build at import (2.1 and later); on cpu neither (a compile would share the CPU that the
  /// timed candidate is measured on).
  std::string prebuild = "auto";
};

/// Where the runner's pieces live: the Python package folder and the C runtime library.
struct runner_paths {
  std::filesystem::path python_dir;  ///< holds arbiter_runner/
  std::filesystem::path runtime_lib; ///< libarbiter_runtime.so
};

/// ARBITER_PYTHONPATH / ARBITER_RUNTIME_LIB if set, else next to the executable
/// (<bin>/../lib, <bin>/../share/arbiter/python), else the source tree it was built from.
/// Throws config_error listing the places looked at.
runner_paths locate_runner();

} // namespace arbiter::pipeline
