#pragma once
/// What `arbiter eval` was asked to do.
#include "arbiter/runtime/timing_options.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace arbiter::pipeline {

/// The one set of timing settings and defaults (the runtime's, which its C ABI hands out too).
using timing_options = runtime::timing_options;

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
  double timeout_s = 900; ///< per process, wall clock
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
