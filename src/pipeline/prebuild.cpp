#include "detail/prebuild.hpp"

#include "arbiter/common/log.hpp"
#include "detail/runs.hpp"
#include "detail/sandbox_view.hpp"

namespace arbiter::pipeline::detail {

namespace fs = std::filesystem;

prebuilder::prebuilder(const job_context& ctx, std::vector<const catalog::solution*> solutions, fs::path data_dir,
                       unsigned workers)
    : m_ctx(ctx), m_solutions(std::move(solutions)), m_data_dir(std::move(data_dir)) {
  if (m_solutions.empty()) return;
  for (unsigned worker_idx = 0; worker_idx < workers; ++worker_idx) m_threads.emplace_back([this] { work(); });
}

prebuilder::~prebuilder() {
  m_stop = true;
  for (auto& t : m_threads) t.join();
}

void prebuilder::work() {
  while (!m_stop) {
    const std::size_t solution_idx = m_next++;
    if (solution_idx >= m_solutions.size()) return;
    try {
      build(*m_solutions[solution_idx]);
    } catch (const std::exception& e) { // the candidate run will meet and report the same failure
      ARB_DEBUG("build", "{}: {}", m_solutions[solution_idx]->label(), e.what());
    }
  }
}

void prebuilder::build(const catalog::solution& solution) {
  const fs::path dir = m_data_dir / "build" / solution.hash.substr(0, 24);
  fs::remove_all(dir);
  copy_solution(solution, dir / "work");
  const fs::path job_file = dir / "job.json";
  write_json(job_file, {{"mode", "build"},
                        {"device", m_ctx.device},
                        {"runtime_lib", m_ctx.paths.runtime_lib.string()},
                        {"solution_file", (dir / "work" / "kernel.py").string()},
                        {"events_file", (dir / "events.jsonl").string()}});
  // Importing the solution runs its code: the build is sandboxed like the candidate run.
  const candidate_paths paths{m_data_dir, dir, cache_root(m_data_dir) / solution.model, {}};
  auto spec = runner_spec(m_ctx, "build", job_file, dir, dir / "work", paths.cache_dir);
  spec.sandbox = candidate_isolation(m_ctx, paths);
  prepare_candidate_files(spec.sandbox, paths, false);
  sandbox::posix_process_runner runner;
  const auto result = runner.run(spec);
  ARB_DEBUG("build", "{}: {} in {:.1f} s{}", solution.label(), sandbox::describe(result), result.wall_s,
            result.isolation_note.empty() ? "" : "; sandbox: " + result.isolation_note);
}

unsigned prebuild_workers() { return std::max(1u, std::thread::hardware_concurrency() / 4); }

} // namespace arbiter::pipeline::detail
