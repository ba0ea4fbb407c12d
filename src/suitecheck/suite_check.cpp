#include "arbiter/suitecheck/suite_check.hpp"

#include "arbiter/catalog/suite.hpp"
#include "arbiter/catalog/toml_reader.hpp"
#include "arbiter/common/device.hpp"
#include "arbiter/common/error.hpp"
#include "arbiter/common/event_names.hpp"
#include "arbiter/common/frames.hpp"
#include "arbiter/doctor/doctor.hpp"
#include "arbiter/pipeline/options.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>

namespace arbiter::suitecheck {

namespace fs = std::filesystem;

bool problem_result::ok() const {
  return error.empty() && std::all_of(shapes.begin(), shapes.end(), [](const shape_result& s) { return s.ok; });
}

bool report::ok() const {
  return std::all_of(problems.begin(), problems.end(), [](const problem_result& p) { return p.ok(); });
}

double memory_budget(const catalog::problem& problem, const nlohmann::json& suite_spec) {
  if (auto it = problem.spec.find("memory_gb"); it != problem.spec.end() && it->is_number()) return it->get<double>();
  if (auto check = suite_spec.find("check"); check != suite_spec.end() && check->is_object())
    if (auto it = check->find("memory_gb"); it != check->end() && it->is_number()) return it->get<double>();
  return k_default_memory_gb;
}

nlohmann::json make_job(const catalog::problem& problem, const std::string& device, const options& opts, double memory_gb,
                        const fs::path& events_file, const fs::path& runtime_lib) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const auto& s : problem.shapes_for(device)) shapes.push_back({{"name", s.name}, {"params", s.params}});
  const bool bitwise = problem.tol.mode == catalog::tolerance_mode::bitwise;
  return {
      {"mode", "check"},
      {"problem_file", problem.reference_file.string()},
      {"device", device},
      {"shapes", shapes},
      {"tolerance",
       {{"atol", bitwise ? 0.0 : problem.tol.atol},
        {"rtol", bitwise ? 0.0 : problem.tol.rtol},
        {"mode", bitwise ? "bitwise" : "allclose"}}},
      {"seeds", opts.seeds},
      {"weights_seed", opts.weights_seed},
      {"memory_gb", memory_gb},
      {"repeats", opts.repeats},
      {"baselines",
       {{"compile", problem.compile_baseline && opts.time_compile},
        {"sota", problem.sota_file.empty() || !opts.time_sota ? nlohmann::json() : nlohmann::json(problem.sota_file.string())}}},
      {"events_file", events_file.string()},
      {"runtime_lib", runtime_lib.string()}};
}

namespace {

std::optional<double> number_or_null(const nlohmann::json& event, const char* key) {
  const auto it = event.find(key);
  if (it == event.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::vector<std::string> strings(const nlohmann::json& event, const char* key) {
  std::vector<std::string> out;
  if (const auto it = event.find(key); it != event.end() && it->is_array())
    for (const auto& v : *it)
      if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

} // namespace

problem_result read_events(const catalog::problem& problem, const std::string& device, std::istream& events,
                           const sandbox::process_result& process) {
  problem_result result;
  result.id = problem.id;
  result.level = problem.level;
  const auto shapes = problem.shapes_for(device);
  std::map<std::size_t, shape_result> seen;
  std::string error;
  const frame_stream frames = read_frames(events); // a frame cut short by a kill is left out
  for (const auto& event : frames.events) {
    const std::string kind = event.value("event", "");
    if (kind == event_name::error) {
      error = "the reference failed in phase " + event.value("phase", "?") + ": " + event.value("type", "") + ": " +
          event.value("message", "");
    } else if (kind == event_name::shape_check) {
      const auto idx = event.value("shape_idx", std::size_t{0});
      shape_result s;
      s.name = event.value("name", std::to_string(idx));
      s.ok = event.value("ok", false);
      s.failures = strings(event, "failures");
      s.notes = strings(event, "notes");
      s.ref_ms = number_or_null(event, "ref_ms");
      s.peak_gb = number_or_null(event, "peak_gb");
      s.baselines = event.value("baselines", nlohmann::json::object());
      s.io = {{"inputs", event.value("inputs", nlohmann::json::array())},
              {"outputs", event.value("outputs", nlohmann::json::array())}};
      if (!s.ok && s.failures.empty()) s.failures.push_back("the runner reported a failure without a reason");
      seen[idx] = std::move(s);
    }
  }
  const bool clean_exit = process.end == sandbox::process_end::exited && process.exit_code == 0;
  if (!error.empty()) result.error = error;
  else if (!clean_exit) result.error = "the check process " + sandbox::describe(process);
  for (std::size_t idx = 0; idx < shapes.size(); ++idx) {
    if (const auto it = seen.find(idx); it != seen.end()) {
      result.shapes.push_back(it->second);
      continue;
    }
    shape_result missing;
    missing.name = shapes[idx].name;
    missing.failures.push_back(result.error.empty() ? "no result for this shape" : "not checked: " + result.error);
    result.shapes.push_back(std::move(missing));
  }
  return result;
}

namespace {

std::map<std::string, std::string> runner_env(const std::string& python, const fs::path& python_dir, const fs::path& home) {
  std::map<std::string, std::string> env{
      {"PATH", fs::path(python).parent_path().string() + ":/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin"},
      {"HOME", home.string()},
      {"PYTHONPATH", python_dir.string()},
      {"PYTHONUNBUFFERED", "1"},
      {"PYTHONDONTWRITEBYTECODE", "1"},
      {"PYTHONNOUSERSITE", "1"},
      {"LANG", "C.UTF-8"},
  };
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "CUDA_HOME", "LD_LIBRARY_PATH", "NVIDIA_VISIBLE_DEVICES",
                           "NVIDIA_DRIVER_CAPABILITIES", "OMP_NUM_THREADS"})
    if (const char* value = std::getenv(name)) env[name] = value;
  return env;
}

std::string pick_device(const options& opts, const std::string& python) {
  if (!opts.device.empty()) {
    return require_device(opts.device, "--device");
  }
  const doctor::environment env = doctor::probe_environment(python);
  return env.gpu.present && env.python.torch_cuda_available ? "cuda" : "cpu";
}

nlohmann::json read_suite_spec(const fs::path& dir) {
  const fs::path file = dir / "suite.toml";
  return fs::is_regular_file(file) ? catalog::read_toml(file) : nlohmann::json::object();
}

} // namespace

report run(const options& given, sandbox::process_runner& runner) {
  options opts = given;
  opts.work_dir = fs::absolute(opts.work_dir); // the check process runs inside it: its paths must not be relative
  if (opts.python.empty()) opts.python = doctor::find_python();
  if (opts.seeds.size() != 2 || opts.seeds[0] == opts.seeds[1])
    ARB_THROW(config_error, "suite check needs two different input seeds");
  const catalog::suite suite = catalog::load_suite(opts.suite_dir);
  const nlohmann::json suite_spec = read_suite_spec(opts.suite_dir);
  const pipeline::runner_paths paths = pipeline::locate_runner();
  report rep;
  rep.suite = suite.name;
  rep.device = pick_device(opts, opts.python);
  for (const auto& wanted : opts.only)
    if (suite.find(wanted) == nullptr) ARB_THROW(config_error, "--problem " + wanted + ": no such problem in " + suite.name);
  for (const auto& problem : suite.problems) {
    if (!opts.only.empty() && std::find(opts.only.begin(), opts.only.end(), problem.id) == opts.only.end()) continue;
    const fs::path dir = opts.work_dir / problem.id;
    fs::remove_all(dir);
    fs::create_directories(dir);
    const double budget = memory_budget(problem, suite_spec);
    if (problem.shapes_for(rep.device).empty()) {
      problem_result none{problem.id, problem.level, budget, "", {}, {}};
      rep.problems.push_back(none); // nothing to run on this device: reported as such, not a failure
      continue;
    }
    const nlohmann::json job = make_job(problem, rep.device, opts, budget, dir / "events.jsonl", paths.runtime_lib);
    std::ofstream(dir / "job.json") << job.dump(2) << '\n';
    sandbox::process_spec spec;
    spec.argv = {opts.python, "-m", "arbiter_runner", "check", (dir / "job.json").string()};
    spec.env = runner_env(opts.python, paths.python_dir, dir);
    spec.cwd = dir.string();
    spec.timeout_s = opts.timeout_s;
    spec.log_path = (dir / "log.txt").string();
    const sandbox::process_result process = runner.run(spec);
    std::ifstream events(dir / "events.jsonl");
    problem_result result = read_events(problem, rep.device, events, process);
    result.memory_gb = budget;
    result.log = dir / "log.txt";
    rep.problems.push_back(std::move(result));
  }
  return rep;
}

} // namespace arbiter::suitecheck
