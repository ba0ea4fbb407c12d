#pragma once
/// `arbiter suite check`: vets a suite's references before any model is ranked on them. For
/// every problem, in a clean runner process of its own (`python3 -m arbiter_runner check`), each
/// shape that runs on the device must be deterministic for a seed, depend on the seed, give
/// finite, non-constant outputs that an all-zeros or an identity answer cannot match at the
/// problem's tolerance, and stay within a GPU-memory budget; its reference time is recorded.
#include "arbiter/catalog/problem.hpp"
#include "arbiter/sandbox/process.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace arbiter::suitecheck {

/// Budget when neither the problem (`memory_gb`) nor suite.toml (`[check] memory_gb`) sets one.
inline constexpr double k_default_memory_gb = 40.0;

struct options {
  std::filesystem::path suite_dir;
  std::string device;             ///< "cpu" | "cuda"; empty = cuda when a GPU is usable
  std::string python;             ///< empty = doctor::find_python()
  std::filesystem::path work_dir; ///< jobs, event logs and runner logs (created)
  std::vector<std::string> only;  ///< problem ids to check; empty = all
  double timeout_s = 900;         ///< wall clock per problem process
  int repeats = 5;                ///< timed calls per shape (median reported)
  std::vector<std::uint64_t> seeds{20240611, 777};
  std::uint64_t weights_seed = 42;
  bool time_compile = true; ///< time torch.compile where problem.toml asks (compiles per shape: minutes per suite)
  bool time_sota = true;    ///< time sota.py where problem.toml names one
};

struct shape_result {
  std::string name;
  bool ok = false;
  std::vector<std::string> failures; ///< one line each, a person can act on it
  std::vector<std::string> notes;
  std::optional<double> ref_ms;
  std::optional<double> peak_gb;
  nlohmann::json io = nlohmann::json::object(); ///< {"inputs": [...], "outputs": [...]}: dtype and shape
  /// {"eager": {"median_ms"}, "compile": {"median_ms"} | {"unavailable": reason} | null, "sota": the
  /// same}: null where problem.toml asks for no such baseline.
  nlohmann::json baselines = nlohmann::json::object();
};

struct problem_result {
  std::string id;
  int level = 0;
  double memory_gb = k_default_memory_gb;
  std::string error;                ///< the process or the load failed: no shape result then
  std::vector<shape_result> shapes; ///< the device's shapes, in file order
  std::filesystem::path log;        ///< the runner's stdout and stderr

  bool ok() const;
};

struct report {
  std::string suite;
  std::string device;
  std::vector<problem_result> problems;

  bool ok() const;
};

/// The budget for problem: its own `memory_gb`, else suite.toml's `[check] memory_gb` (suite_spec
/// is suite.toml as JSON, possibly empty), else k_default_memory_gb.
double memory_budget(const catalog::problem& problem, const nlohmann::json& suite_spec);

/// The runner's job for one problem: its shapes for device, its resolved tolerance, the seeds, the
/// baselines to time beside eager (compile; the sota file's absolute path or null).
nlohmann::json make_job(const catalog::problem& problem, const std::string& device, const options& opts, double memory_gb,
                        const std::filesystem::path& events_file, const std::filesystem::path& runtime_lib);

/// Reads the runner's event log (one JSON object per line) into the problem's result; `process`
/// says how the process ended. Shapes with no `shape_check` event are failures naming why.
problem_result read_events(const catalog::problem& problem, const std::string& device, std::istream& events,
                           const sandbox::process_result& process);

/// Runs the check over the suite (one process per problem).
report run(const options& opts, sandbox::process_runner& runner);

/// One row per problem and shape: problem, level, shape, reference (eager), compile and sota ms
/// ("—" where not asked for or unavailable), peak GiB, result (ok or the failures); then a summary
/// line and why each unavailable baseline was.
std::string render_table(const report& rep);
nlohmann::json to_json(const report& rep);

} // namespace arbiter::suitecheck
