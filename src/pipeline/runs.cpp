#include "detail/runs.hpp"

#include "detail/probe_setup.hpp"
#include "detail/sandbox_view.hpp"

#include "arbiter/common/error.hpp"
#include "arbiter/common/hash.hpp"
#include "arbiter/common/log.hpp"
#include "arbiter/probe/signature.hpp"

#include <cstdlib>
#include <fstream>

namespace arbiter::pipeline::detail {

namespace fs = std::filesystem;

sandbox::process_spec runner_spec(const job_context& ctx, const std::string& mode, const fs::path& job_file, const fs::path& dir,
                                  const fs::path& cwd, const fs::path& cache_dir) {
  sandbox::process_spec spec;
  spec.argv = {ctx.options.python, "-m", "arbiter_runner", mode, job_file.string()};
  spec.env = runner_environment(ctx, cache_dir, cwd);
  spec.cwd = cwd.string();
  spec.timeout_s = ctx.options.timeout_s;
  spec.log_path = (dir / "log.txt").string();
  return spec;
}

void use_channel(sandbox::process_spec& spec, const fs::path& events_file) {
  spec.channel_path = events_file.string();
  spec.env["ARBITER_EVENTS_FD"] = std::to_string(sandbox::channel_fd);
}

nlohmann::json reference_identity(const job_context& ctx, const nlohmann::json& job, const catalog::problem& problem,
                                  const std::string& hardware_fingerprint, bool probe) {
  nlohmann::json identity = job;
  for (const char* path_key :
       {"runtime_lib", "problem_file", "exchange_dir", "sealed_dir", "output_dir", "timing_dir", "events_file", "outside"})
    identity.erase(path_key);
  identity["layout"] = k_reference_layout;
  identity["problem_hash"] = problem.hash;
  identity["hardware"] = hardware_fingerprint;
  identity["python"] = ctx.options.python;
  if (probe) identity["probe"] = true; // baselines timed with the probe's overhead, like candidates
  // Baselines timed on the host under these thread and allocator settings.
  if (ctx.device == "cpu") identity["cpu_environment"] = cpu_environment();
  return identity;
}

std::string reference_key(const job_context& ctx, const nlohmann::json& job, const catalog::problem& problem,
                          const std::string& hardware_fingerprint, bool probe) {
  return sha256_hex(reference_identity(ctx, job, problem, hardware_fingerprint, probe).dump()).substr(0, 24);
}

// Build caches (torch extensions, Triton, CUDA JIT) live per model under ARBITER_CACHE_DIR when
// set, so that several databases on one machine share compiled kernels; else beside the database.
fs::path cache_root(const fs::path& data_dir) {
  if (const char* dir = std::getenv("ARBITER_CACHE_DIR"); dir && *dir) return fs::absolute(dir);
  return data_dir / "cache";
}

std::string failure_line(const sandbox::process_result& process, const runner_events& events) {
  if (events.error) return error_line(*events.error);
  return sandbox::describe(process) + " before finishing";
}

reference_plan plan_reference(const job_context& ctx, const catalog::problem& problem, const std::vector<std::uint64_t>& seeds,
                              const std::string& hardware_fingerprint, const fs::path& data_dir) {
  reference_plan plan;
  probe_setup probe = probe_for(ctx, {});
  const std::string key =
      reference_key(ctx, reference_job(ctx, problem, seeds, "/"), problem, hardware_fingerprint, probe.enabled());
  plan.dir = data_dir / "reference" / (problem.id + "-" + key);
  if (read_events(plan.dir / "events.jsonl").done) {
    ARB_DEBUG("reference", "{}: cached at {}", problem.id, plan.dir.string());
    plan.cached = true;
    return plan;
  }
  fs::remove_all(plan.dir);
  fs::create_directories(plan.dir / "home");
  fs::create_directories(plan.dir / "exchange"); // bound into candidates started while the reference runs
  const fs::path job_file = plan.dir / "job.json";
  write_json(job_file, reference_job(ctx, problem, seeds, plan.dir));
  plan.label = fmt::format("{} ({} shapes × {} seeds)", problem.id, ctx.shapes.size(), seeds.size());
  plan.spec = runner_spec(ctx, "reference", job_file, plan.dir, plan.dir / "home", cache_root(data_dir) / "_reference");
  use_channel(plan.spec, plan.dir / "events.jsonl");
  probe.out = plan.dir / "probe.json";
  apply_probe(probe, plan.spec);
  return plan;
}

std::unique_ptr<sandbox::started_process> start_reference(const reference_plan& plan, sandbox::process_runner& runner) {
  if (plan.cached) return nullptr;
  sandbox::process_spec spec = plan.spec;
  spec.env["ARBITER_GATE_FD"] = std::to_string(sandbox::gate_fd);
  return runner.start(spec);
}

reference_run finish_reference(const reference_plan& plan, std::unique_ptr<sandbox::started_process> started,
                               sandbox::process_runner& runner) {
  reference_run run;
  run.dir = plan.dir;
  run.ok = plan.cached;
  if (plan.cached) return run;
  run.started_ahead = started != nullptr;
  ARB_INFO("reference", "{}: running the reference{}", plan.label, run.started_ahead ? ", started ahead" : "");
  if (!started) started = start_reference(plan, runner);               // the started process is what reads its CPU time
  outside_clock clock(reference_outside(plan.dir), started->access()); // before the gate opens
  const auto process = started->finish();
  clock.stop();
  run.gated_s = process.gated_s;
  const runner_events events = read_events(plan.dir / "events.jsonl");
  run.ok = events.done && process.end == sandbox::process_end::exited && process.exit_code == 0;
  if (!run.ok)
    run.failure = "reference failed: " + failure_line(process, events) + " (log: " + (plan.dir / "log.txt").string() + ")";
  return run;
}

reference_run ensure_reference(const job_context& ctx, const catalog::problem& problem, const std::vector<std::uint64_t>& seeds,
                               const std::string& hardware_fingerprint, const fs::path& data_dir,
                               sandbox::process_runner& runner) {
  return finish_reference(plan_reference(ctx, problem, seeds, hardware_fingerprint, data_dir), nullptr, runner);
}

// Static facts come from a trusted process of their own that parses the sources, before the
// candidate runs and can change them.
static nlohmann::json extract_facts(const job_context& ctx, const fs::path& work, const fs::path& eval_dir,
                                    sandbox::process_runner& runner) {
  sandbox::process_spec spec;
  const fs::path out = eval_dir / "facts.json";
  spec.argv = {ctx.options.python, "-m", "arbiter_runner", "facts", work.string(), "--out", out.string()};
  spec.env = runner_environment(ctx, eval_dir / "facts-cache", eval_dir);
  spec.cwd = eval_dir.string();
  spec.timeout_s = 120;
  spec.log_path = (eval_dir / "facts-log.txt").string();
  const auto process = runner.run(spec);
  std::ifstream in(out);
  nlohmann::json facts = in ? nlohmann::json::parse(in, nullptr, false) : nlohmann::json();
  if (process.end != sandbox::process_end::exited || process.exit_code != 0 || !facts.is_object()) {
    // Fail closed: the guard reads this as a finding, never as a solution with nothing to see.
    const std::string why = "the facts process " + sandbox::describe(process) + " (log: " + spec.log_path + ")";
    ARB_WARN("guard", "static facts of {} unavailable: {}", work.string(), why);
    return nlohmann::json{{"unavailable", why}};
  }
  return facts;
}

// Copies, never links: the candidate can reopen a set through its descriptor for writing, and a
// linked file is the reference's own, handed to every later evaluation of the problem.
void hand_over_sealed(const fs::path& from, const fs::path& to) {
  if (!fs::exists(from)) return; // no guard sets
  std::error_code ec;
  for (fs::recursive_directory_iterator it(from, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path target = to / fs::relative(it->path(), from);
    if (it->is_directory()) {
      fs::create_directories(target);
      continue;
    }
    fs::copy_file(it->path(), target, fs::copy_options::overwrite_existing);
  }
  if (ec) ARB_THROW(io_error, "cannot read the sealed sets in " + from.string() + ": " + ec.message());
}

void copy_solution(const catalog::solution& solution, const fs::path& work) {
  fs::create_directories(work);
  for (const auto& rel : solution.files) {
    fs::create_directories((work / rel).parent_path());
    fs::copy_file(solution.dir / rel, work / rel, fs::copy_options::overwrite_existing);
  }
}

// The probe's signing key, in a file the probe deletes as it reads it, during cuInit and so before
// any candidate code runs (docs/probe.md, "Signed evidence"); prepare_candidate_files hands the
// folder to the candidate's user.
static std::string hand_over_key(const fs::path& key_file, sandbox::process_spec& spec) {
  std::string key;
  try {
    key = probe::new_evidence_key();
  } catch (const std::exception& e) {
    ARB_THROW(io_error, std::string("cannot make the probe's key: ") + e.what());
  }
  fs::create_directories(key_file.parent_path());
  std::ofstream out(key_file, std::ios::trunc);
  if (!(out << key << '\n')) ARB_THROW(io_error, "cannot write the probe's key to " + key_file.string());
  spec.env["ARBITER_PROBE_KEY"] = key_file.string();
  return key;
}

started_candidate start_candidate(const job_context& ctx, const catalog::solution& solution, const fs::path& ref_dir,
                                  const fs::path& eval_dir, const fs::path& data_dir, sandbox::process_runner& runner) {
  fs::remove_all(eval_dir);
  const fs::path work = eval_dir / "work";
  copy_solution(solution, work);
  const fs::path job_file = eval_dir / "job.json";
  write_json(job_file, candidate_job(ctx, work / "kernel.py", ref_dir, eval_dir));
  started_candidate started;
  started.label = solution.label();
  started.eval_dir = eval_dir;
  started.run.facts = extract_facts(ctx, work, eval_dir, runner);
  const candidate_paths paths{data_dir, eval_dir, cache_root(data_dir) / solution.model, ref_dir / "exchange"};
  started.spec = runner_spec(ctx, "candidate", job_file, eval_dir, work, paths.cache_dir);
  started.spec.sandbox = candidate_isolation(ctx, paths);
  use_channel(started.spec, eval_dir / "events.jsonl"); // in the root-owned folder: the candidate cannot replace it
  started.spec.env["ARBITER_GATE_FD"] = std::to_string(sandbox::gate_fd);
  const probe_setup probe = probe_for(ctx, eval_dir / "outputs" / "probe.json");
  apply_probe(probe, started.spec);
  started.run.probe = probe.status;
  try {
    if (probe.enabled()) started.run.probe_key = hand_over_key(eval_dir / "outputs" / "probe.key", started.spec);
    prepare_candidate_files(started.spec.sandbox, paths, true);
    started.process = runner.start(started.spec);
  } catch (const io_error& e) { // the evaluation's verdict (crashed), never the campaign's end
    started.run.process.end = sandbox::process_end::failed_to_start;
    started.run.process.error = e.what();
  }
  return started;
}

void open_candidate(started_candidate& started, const fs::path& ref_dir) {
  if (!started.process) return;
  try {
    hand_over_sealed(ref_dir / "sealed", started.eval_dir / "sealed");
    receive_reference_files(started.spec.sandbox, started.eval_dir, ref_dir / "exchange");
  } catch (const std::exception& e) { // fs errors too: the evaluation's verdict, never the campaign's end
    started.process.reset();          // killed behind its closed gate: no candidate code ran
    started.run.process.end = sandbox::process_end::failed_to_start;
    started.run.process.error = std::string("handing over the reference's files: ") + e.what();
    return;
  }
  try {
    started.clock = std::make_unique<outside_clock>(candidate_outside(ref_dir, started.eval_dir), started.process->access());
  } catch (const io_error& e) { // no clock, no evaluation: killed behind its closed gate
    started.process.reset();
    started.run.process.end = sandbox::process_end::failed_to_start;
    started.run.process.error = e.what();
    return;
  }
  started.process->open();
}

candidate_run finish_candidate(started_candidate& started) {
  candidate_run run = std::move(started.run);
  if (started.process) {
    run.process = started.process->finish();
    started.process.reset();
  }
  if (started.clock) {
    run.outside = started.clock->stop();
    started.clock.reset();
  }
  run.sandbox = sandbox_details(started.spec.sandbox, run.process);
  if (started.spec.sandbox.enabled && !run.process.isolation_applied && !run.process.isolation_note.empty())
    ARB_WARN("sandbox", "{}: ran without full isolation: {}", started.label, run.process.isolation_note);
  run.events = read_events(started.eval_dir / "events.jsonl");
  return run;
}

candidate_run run_candidate(const job_context& ctx, const catalog::solution& solution, const fs::path& ref_dir,
                            const fs::path& eval_dir, const fs::path& data_dir, sandbox::process_runner& runner) {
  started_candidate started = start_candidate(ctx, solution, ref_dir, eval_dir, data_dir, runner);
  open_candidate(started, ref_dir);
  return finish_candidate(started);
}

} // namespace arbiter::pipeline::detail
