#include "arbiter/pipeline/check.hpp"

#include "arbiter/catalog/suite.hpp"
#include "arbiter/common/device.hpp"
#include "arbiter/common/error.hpp"
#include "arbiter/doctor/doctor.hpp"
#include "arbiter/judge/judge.hpp"
#include "detail/runs.hpp"

#include <chrono>

namespace arbiter::pipeline {

namespace fs = std::filesystem;

namespace {

// The problem as its suite defines it (suite.toml defaults for tolerance and rules apply).
catalog::problem load_problem(const fs::path& where) {
  if (!fs::exists(where)) ARB_THROW(config_error, "--problem " + where.string() + ": no such folder");
  const fs::path target = fs::canonical(where);
  const catalog::suite s = catalog::load_suite(target.parent_path());
  for (const auto& problem : s.problems) {
    std::error_code ec;
    if (fs::equivalent(problem.dir, target, ec) || fs::equivalent(problem.reference_file, target, ec)) return problem;
  }
  ARB_THROW(config_error, "--problem " + where.string() + ": suite " + s.dir.string() + " holds no problem there");
}

std::string pick_device(const check_options& options) {
  if (!options.device.empty()) {
    return require_device(options.device, "--device");
  }
  const doctor::environment env = doctor::probe_environment(options.python);
  return env.gpu.present && env.python.torch_cuda_available ? "cuda" : "cpu";
}

// One folder per run: earlier runs stay readable while the agent iterates.
fs::path next_run_dir(const fs::path& data_dir) {
  const auto stamp = std::chrono::system_clock::now().time_since_epoch();
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(stamp).count();
  return data_dir / "runs" / std::to_string(micros);
}

} // namespace

std::vector<std::uint64_t> public_seeds(int count) {
  std::vector<std::uint64_t> seeds;
  for (int seed_idx = 0; seed_idx < count; ++seed_idx) seeds.push_back(1000 + static_cast<std::uint64_t>(seed_idx));
  return seeds;
}

check_report run_check(const check_options& given, sandbox::process_runner& runner) {
  check_options options = given;
  if (options.python.empty()) options.python = doctor::find_python();
  if (!fs::is_regular_file(options.solution))
    ARB_THROW(config_error, "--solution " + options.solution.string() + ": no such file");
  const catalog::problem problem = load_problem(options.problem_dir);
  check_report report;
  report.problem = problem.id;
  report.device = pick_device(options);
  eval_options eval;
  eval.python = options.python;
  eval.num_seeds = options.num_seeds;
  eval.timeout_s = options.timeout_s;
  eval.timing = options.timing;
  eval.suite_dir = problem.dir.parent_path(); // hidden from the candidate, reference.py included
  eval.db.clear();                            // no database
  eval.sandbox = options.sandbox;
  const runner_paths paths = locate_runner();
  const detail::job_context ctx{eval, paths, report.device, problem.shapes_for(report.device)};
  if (ctx.shapes.empty()) {
    report.result = {verdict::skipped, "the problem has no shape for " + report.device};
    return report;
  }
  const fs::path data_dir = fs::absolute(options.data_dir);
  const auto reference =
      detail::ensure_reference(ctx, problem, public_seeds(options.num_seeds), "public/" + report.device, data_dir, runner);
  if (!reference.ok) {
    report.result = {verdict::crashed, reference.failure};
    return report;
  }
  catalog::solution solution;
  solution.problem_id = problem.id;
  solution.model = "check";
  report.run_dir = next_run_dir(data_dir);
  // The runner imports kernel.py: a file of another name is staged under that name.
  solution.dir = fs::absolute(options.solution).parent_path();
  if (options.solution.filename() != "kernel.py") {
    solution.dir = report.run_dir.string() + ".src";
    fs::create_directories(solution.dir);
    fs::copy_file(options.solution, solution.dir / "kernel.py", fs::copy_options::overwrite_existing);
  }
  solution.entry = solution.dir / "kernel.py";
  solution.files = {"kernel.py"};
  const auto run = detail::run_candidate(ctx, solution, reference.dir, report.run_dir, data_dir, runner);
  auto judged = judge::judge({problem, detail::judge_context_of(ctx), run, reference.dir, report.run_dir});
  report.result = judged.result;
  report.speedup = judged.result.v == verdict::passed ? judged.speedup : std::nullopt;
  report.details = judge::details_json(judged);
  report.details["sandbox"] = run.sandbox;
  report.measurements = std::move(judged.measurements);
  return report;
}

nlohmann::json check_report_json(const check_report& report) {
  nlohmann::json timings = nlohmann::json::array();
  for (const auto& m : report.measurements)
    timings.push_back({{"shape", m.shape},
                       {"role", m.role},
                       {"clock", m.clock},
                       {"median_ms", m.median_ms},
                       {"p10_ms", m.p10_ms},
                       {"p90_ms", m.p90_ms},
                       {"samples", m.samples}});
  return {{"problem", report.problem},
          {"device", report.device},
          {"seeds", "public"},
          {"verdict", std::string(to_string(report.result.v))},
          {"reason", report.result.reason},
          {"speedup", report.speedup ? nlohmann::json(*report.speedup) : nlohmann::json(nullptr)},
          {"cases", report.details.value("cases", nlohmann::json::array())},
          {"timings", timings},
          {"log", report.run_dir.empty() ? "" : (report.run_dir / "log.txt").string()}};
}

} // namespace arbiter::pipeline
