#include "arbiter/pipeline/campaign.hpp"

#include "arbiter/catalog/solution.hpp"
#include "arbiter/catalog/suite.hpp"
#include "arbiter/common/device.hpp"
#include "arbiter/common/error.hpp"
#include "arbiter/common/log.hpp"
#include "arbiter/doctor/doctor.hpp"
#include "arbiter/guard/version.hpp"
#include "arbiter/pipeline/calibrate.hpp"
#include "arbiter/judge/judge.hpp"
#include "detail/lookahead.hpp"
#include "detail/prebuild.hpp"
#include "detail/prune.hpp"
#include "detail/run_record.hpp"
#include "detail/runs.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>

namespace arbiter::pipeline {

namespace fs = std::filesystem;

std::string choose_device(const std::string& wanted, const doctor::environment& env) {
  const bool gpu = env.gpu.present && env.python.torch_cuda_available;
  if (wanted.empty()) return gpu ? "cuda" : "cpu";
  require_device(wanted, "--device");
  if (wanted == "cuda" && !gpu)
    ARB_THROW(config_error,
              "--device cuda: no usable GPU (" +
                  (env.gpu.present ? "torch " + env.python.torch_version + " has no CUDA" : env.gpu.error) + ")");
  return wanted;
}

namespace {

struct campaign_state {
  eval_options options;
  runner_paths paths;
  std::string device;
  store::hardware_record hardware;
  store::campaign_record campaign;
  fs::path data_dir;
  detail::build_policy builds; ///< --prebuild
};

std::vector<std::uint64_t> draw_seeds(int count) {
  std::random_device entropy; // the OS's generator: campaign seeds must not be predictable
  std::vector<std::uint64_t> seeds;
  for (int seed_idx = 0; seed_idx < count; ++seed_idx)
    seeds.push_back(((static_cast<std::uint64_t>(entropy()) << 32) | entropy()) >> 1);
  return seeds;
}

nlohmann::json campaign_config(const eval_options& o, const std::string& device) {
  return {{"suite_dir", o.suite_dir.string()},
          {"solutions_dir", o.solutions_dir.string()},
          {"device", device},
          {"num_seeds", o.num_seeds},
          {"timeout_s", o.timeout_s},
          {"weights_seed", o.weights_seed},
          {"python", o.python},
          {"models", o.models},
          {"problems", o.problems},
          {"sandbox", o.sandbox},
          {"prebuild", o.prebuild},
          {"static_rules", o.static_rules}};
}

store::campaign_record open_campaign(campaign_state& st, const catalog::suite& s, store::store& db, std::int64_t hardware_id) {
  store::campaign_record wanted;
  wanted.name = st.options.campaign.empty() ? s.name + "/" + st.device + "/" + st.hardware.fingerprint.substr(0, 8) +
          (st.options.static_rules ? "" : "/static-rules-off")
                                            : st.options.campaign;
  wanted.suite = s.name;
  wanted.device = st.device;
  wanted.hardware_id = hardware_id;
  wanted.config_json = campaign_config(st.options, st.device).dump();
  wanted.seeds = draw_seeds(st.options.num_seeds);
  store::campaign_record got = db.open_campaign(wanted);
  if (got.suite != s.name || got.device != st.device)
    ARB_THROW(config_error,
              "campaign '" + got.name + "' belongs to suite " + got.suite + " on " + got.device +
                  "; choose another --campaign name");
  const auto config = nlohmann::json::parse(got.config_json.empty() ? "{}" : got.config_json, nullptr, false);
  if (config.is_object() && config.value("static_rules", true) != st.options.static_rules)
    ARB_THROW(config_error,
              "campaign '" + got.name + "' was judged with the static rules " + (st.options.static_rules ? "off" : "on") +
                  "; choose another --campaign name");
  if (static_cast<int>(got.seeds.size()) != st.options.num_seeds)
    ARB_THROW(config_error,
              "campaign '" + got.name + "' was created with " + std::to_string(got.seeds.size()) + " seeds; --seeds must match");
  return got;
}

store::problem_record problem_row(const catalog::suite& s, const catalog::problem& p) {
  return {s.name, p.id, p.hash, p.title, p.level, p.spec.dump()};
}

/// Seconds since the last lap (or construction).
class stopwatch {
 public:
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - m_last).count();
    m_last = now;
    return seconds;
  }

 private:
  std::chrono::steady_clock::time_point m_last = std::chrono::steady_clock::now();
};

nlohmann::json build_record(const detail::build_wait& build) {
  nlohmann::json out{{"ok", build.outcome.ok}, {"s", build.outcome.build_s}, {"waited_s", build.waited_s}, {"by", build.by}};
  if (!build.outcome.ok) out["error"] = build.outcome.error;
  return out;
}

// run.json beside the run's other files, for `arbiter rejudge`; without it the evaluation is judged
// all the same and only a later re-judgement is out of reach.
void keep_run_record(const detail::job_context& ctx, const detail::candidate_run& run, const fs::path& ref_dir,
                     const fs::path& eval_dir) {
  try {
    detail::write_run_record(eval_dir, detail::make_run_record(ctx, run, ref_dir));
  } catch (const io_error& e) {
    ARB_WARN("eval", "{}: no run record, so no re-judgement later: {}", eval_dir.string(), e.what());
  }
}

store::evaluation_result evaluate(const campaign_state& st, detail::lookahead& queue, detail::prebuilder& builds,
                                  std::size_t idx) {
  const detail::queued_evaluation& item = queue.at(idx);
  store::evaluation_result r;
  const fs::path eval_dir = queue.eval_dir(idx);
  r.artifacts_dir = eval_dir.string();
  if (!item.solution->runs_on(st.device)) {
    r.result = {verdict::skipped, "the solution declares devices other than " + st.device + " (meta.json)"};
    return r;
  }
  if (item.ctx->shapes.empty()) {
    r.result = {verdict::skipped, "the problem has no shape for " + st.device};
    return r;
  }
  stopwatch clock; // where the evaluation's wall time went: details.wall (docs/measurement.md)
  nlohmann::json wall = nlohmann::json::object();
  const bool runs_reference = !queue.reference_ready(idx);
  const detail::reference_run& reference = queue.reference(idx);
  if (runs_reference) {
    wall["reference_s"] = clock.lap();
    wall["reference_started_ahead"] = reference.started_ahead;
    wall["reference_gated_s"] = reference.gated_s;
  }
  if (!reference.ok) {
    r.result = {verdict::crashed, reference.failure};
    r.details_json = nlohmann::json{{"wall", wall}}.dump();
    return r;
  }
  std::optional<detail::started_candidate> ahead = queue.take(idx);
  wall["started_ahead"] = ahead.has_value();
  detail::started_candidate own = ahead
      ? std::move(*ahead)
      : detail::start_candidate(*item.ctx, *item.solution, reference.dir, eval_dir, st.data_dir, queue.runner());
  // No compile on the GPU's time: the candidate imports its solution once the build is done.
  const detail::build_wait build = st.builds.wait ? builds.wait_for(*item.solution) : detail::build_wait{};
  if (!build.by.empty()) wall["build_wait_s"] = build.waited_s;
  detail::open_candidate(own, reference.dir);
  queue.start_after(idx); // the next candidates' start-up overlaps this one's run
  const auto run = detail::finish_candidate(own);
  wall["candidate_s"] = clock.lap();
  wall["candidate_process_s"] = run.process.wall_s;
  wall["candidate_gated_s"] = run.process.gated_s;
  keep_run_record(*item.ctx, run, reference.dir, eval_dir);
  auto j = judge::judge({*item.problem, detail::judge_context_of(*item.ctx), run, reference.dir, eval_dir});
  wall["judge_s"] = clock.lap();
  j.details["sandbox"] = run.sandbox;
  if (!build.by.empty()) j.details["build"] = build_record(build);
  if (!st.options.keep_outputs)
    if (const auto p = detail::prune_bundles(eval_dir); p.files > 0)
      j.details["pruned_bundles"] = {{"files", p.files}, {"bytes", p.bytes}};
  wall["prune_s"] = clock.lap();
  j.details["wall"] = wall;
  store::evaluation_result judged = judge::stored_judgement(std::move(j));
  judged.artifacts_dir = r.artifacts_dir;
  if (!run.facts.empty()) judged.facts_json = run.facts.dump();
  return judged;
}

// An error of arbiter's own while evaluating one solution (a file it cannot write, evidence it cannot
// parse) ends that evaluation as crashed, with the error, and the campaign goes on to the next.
store::evaluation_result evaluate_contained(const campaign_state& st, detail::lookahead& queue, detail::prebuilder& builds,
                                            std::size_t idx) {
  try {
    return evaluate(st, queue, builds, idx);
  } catch (const std::exception& e) {
    store::evaluation_result r;
    r.artifacts_dir = queue.eval_dir(idx).string();
    r.result = {verdict::crashed, std::string("arbiter failed while evaluating: ") + e.what()};
    ARB_WARN("eval", "{} / {}: {}", queue.at(idx).problem->id, queue.at(idx).solution->model, r.result.reason);
    return r;
  }
}

std::int64_t solution_row(store::store& db, std::int64_t problem_id, const catalog::solution& solution) {
  const std::int64_t model_id = db.upsert_model(solution.model, solution.meta.value("org", ""));
  return db.upsert_solution(problem_id, model_id,
                            {solution.model, solution.sample, solution.hash, solution.dir.string(), solution.meta.dump()});
}

// Every problem the campaign covers counts in pass@1's denominator, solved by anyone or not.
std::map<std::string, std::int64_t> register_problems(const campaign_state& st, const catalog::suite& s, store::store& db) {
  std::map<std::string, std::int64_t> ids;
  std::vector<std::int64_t> covered;
  for (const auto& problem : s.problems) {
    if (!st.options.problems.empty() &&
        std::find(st.options.problems.begin(), st.options.problems.end(), problem.id) == st.options.problems.end())
      continue;
    ids[problem.id] = db.upsert_problem(problem_row(s, problem));
    covered.push_back(ids[problem.id]);
  }
  db.add_campaign_problems(st.campaign.id, covered);
  return ids;
}

int prestart_depth(const campaign_state& st) {
  if (st.options.prestart >= 0) return st.options.prestart;
  return st.device == "cuda" ? 2 : 0;
}

/// The evaluations still to run, problem by problem; those finished earlier are reported as
/// resumed. contexts gets each problem's job context.
std::vector<detail::queued_evaluation> queue_evaluations(const campaign_state& st, const catalog::suite& s,
                                                         const std::vector<catalog::solution>& solutions,
                                                         const std::map<std::string, std::int64_t>& problem_ids,
                                                         std::map<std::string, detail::job_context>& contexts, store::store& db,
                                                         progress& sink, campaign_summary& summary) {
  std::map<std::string, std::vector<const catalog::solution*>> by_problem;
  for (const auto& solution : solutions) by_problem[solution.problem_id].push_back(&solution);
  std::vector<detail::queued_evaluation> queue;
  for (const auto& [problem_id, group] : by_problem) {
    const catalog::problem& problem = *s.find(problem_id);
    const auto& ctx =
        contexts.try_emplace(problem_id, st.options, st.paths, st.device, problem.shapes_for(st.device)).first->second;
    for (const auto* solution : group) {
      const std::int64_t solution_id = solution_row(db, problem_ids.at(problem_id), *solution);
      if (!db.finished_evaluation(st.campaign.id, solution_id)) {
        queue.push_back({&problem, &ctx, solution, solution_id});
        continue;
      }
      ++summary.resumed;
      sink.finish(solution->label(), {verdict::skipped, "finished earlier"}, std::nullopt, true);
    }
  }
  return queue;
}

// Solutions the loop will run a candidate for, in the loop's order.
std::vector<const catalog::solution*> to_build(const std::vector<detail::queued_evaluation>& queue) {
  std::vector<const catalog::solution*> out;
  for (const auto& item : queue)
    if (item.runs_candidate()) out.push_back(item.solution);
  return out;
}

void run_queue(const campaign_state& st, detail::lookahead& queue, detail::prebuilder& builds, store::store& db, progress& sink,
               campaign_summary& summary) {
  for (std::size_t idx = 0; idx < queue.size(); ++idx) {
    sink.start(queue.at(idx).solution->label());
    const auto started = std::chrono::steady_clock::now();
    store::evaluation_result result = evaluate_contained(st, queue, builds, idx);
    result.guard_version = guard::guard_version();
    result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    db.finish_evaluation(queue.eval_id(idx), result);
    ++summary.evaluated;
    sink.finish(queue.at(idx).solution->label(), result.result, result.speedup, false);
    if (queue.last_of_problem(idx) && queue.reference_ready(idx) && !st.options.keep_outputs) {
      const auto& reference = queue.reference(idx);
      if (reference.ok) detail::prune_reference(reference.dir);
    }
  }
}

// Peaks only serve the pages' fraction of peak: a calibration that fails is a warning, never the
// campaign's end.
void calibrate_if_wanted(const campaign_state& st, store::store& db, std::int64_t hardware_id, sandbox::process_runner& runner) {
  const calibration wanted = st.options.calibrate;
  if (wanted == calibration::no || (wanted == calibration::cuda_only && st.device != "cuda")) return;
  if (has_peaks(db, hardware_id)) return;
  try {
    const auto run = calibrate_hardware(db, hardware_id, st.device, st.options.python,
                                        calibration_dir(st.options.db, st.hardware.fingerprint), st.options.timeout_s, runner);
    if (!run.error.empty()) ARB_WARN("calibrate", "no peaks stored: {}", run.error);
  } catch (const io_error& e) {
    ARB_WARN("calibrate", "no peaks stored: {}", e.what());
  }
}

} // namespace

campaign_summary run_campaign(const eval_options& options, store::store& db, sandbox::process_runner& runner, progress& sink) {
  campaign_state st{options, locate_runner(),
                    "",      {},
                    {},      fs::absolute(options.data_dir.empty() ? fs::path(options.db + ".d") : options.data_dir),
                    {}};
  if (st.options.python.empty()) st.options.python = doctor::find_python();
  const doctor::environment env = doctor::probe_environment(st.options.python);
  st.device = choose_device(options.device, env);
  st.hardware = doctor::hardware_for(env, st.device);
  st.builds = detail::build_policy_for(options.prebuild, env.python.torch_version, st.device);
  if (!st.builds.stage && options.prebuild == "auto")
    ARB_INFO("build",
             "no build stage on {}: a compile beside the candidate would share the CPU its calls are timed "
             "on; each candidate builds its solution itself (--prebuild on runs the stage anyway)",
             st.device);
  if (st.builds.stage && !st.builds.wait)
    ARB_INFO("build",
             "candidates do not wait for their builds: torch {} rewrites load_inline's sources at every "
             "import, so a finished build is compiled again (--prebuild on waits anyway)",
             env.python.torch_version);
  const catalog::suite s = catalog::load_suite(options.suite_dir);
  std::vector<std::string> ignored;
  const auto solutions = catalog::load_solutions(options.solutions_dir, s, {options.models, options.problems}, &ignored);
  for (const auto& note : ignored) ARB_WARN("catalog", "ignored {}", note);
  if (solutions.empty())
    ARB_THROW(config_error, options.solutions_dir.string() + ": no solutions for suite " + s.name + " match the filters");
  const std::int64_t hardware_id = db.upsert_hardware(st.hardware);
  calibrate_if_wanted(st, db, hardware_id, runner);
  st.campaign = open_campaign(st, s, db, hardware_id);
  const auto problem_ids = register_problems(st, s, db);
  campaign_summary summary{st.campaign.id, st.campaign.name, s.name, st.device, 0, 0};
  sink.begin(static_cast<std::int64_t>(solutions.size()), st.campaign.name);
  std::map<std::string, detail::job_context> contexts;
  auto queued = queue_evaluations(st, s, solutions, problem_ids, contexts, db, sink, summary);
  const detail::job_context build_ctx{st.options, st.paths, st.device, {}};
  detail::prebuilder builds(
      st.builds.stage ? to_build(queued) : std::vector<const catalog::solution*>{}, detail::prebuild_workers(),
      [&](const catalog::solution& solution) { return detail::build_solution(build_ctx, solution, st.data_dir); });
  detail::lookahead queue(std::move(queued), prestart_depth(st),
                          {db, runner, st.campaign.id, st.campaign.seeds, st.hardware.fingerprint, st.data_dir});
  run_queue(st, queue, builds, db, sink, summary);
  sink.end();
  db.set_campaign_status(st.campaign.id, "finished");
  return summary;
}

} // namespace arbiter::pipeline
