#include "detail/prebuild.hpp"

#include "arbiter/common/log.hpp"
#include "arbiter/sandbox/process.hpp"
#include "detail/runs.hpp"
#include "detail/sandbox_view.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace arbiter::pipeline::detail {

namespace fs = std::filesystem;

prebuilder::prebuilder(std::vector<const catalog::solution*> solutions, unsigned workers, build_fn build)
    : m_build(std::move(build)) {
  for (const auto* solution : solutions) m_slots.push_back({solution, state::pending, {}});
  if (m_slots.empty()) return;
  for (unsigned worker_idx = 0; worker_idx < workers; ++worker_idx) m_threads.emplace_back([this] { work(); });
}

prebuilder::~prebuilder() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  for (auto& t : m_threads) t.join();
}

void prebuilder::work() {
  for (;;) {
    std::size_t idx = 0;
    {
      std::lock_guard lock(m_mutex);
      while (m_next < m_slots.size() && m_slots[m_next].now != state::pending) ++m_next;
      if (m_stop || m_next == m_slots.size()) return;
      idx = m_next++;
      m_slots[idx].now = state::running;
    }
    build(idx);
  }
}

void prebuilder::build(std::size_t idx) {
  const catalog::solution& solution = *m_slots[idx].solution;
  build_outcome outcome;
  try {
    outcome = m_build(solution);
  } catch (const std::exception& e) {
    outcome.error = e.what();
  }
  if (!outcome.ok) ARB_DEBUG("build", "{}: {}", solution.label(), outcome.error);
  {
    std::lock_guard lock(m_mutex);
    m_slots[idx].outcome = std::move(outcome);
    m_slots[idx].now = state::done;
  }
  m_done.notify_all();
}

build_wait prebuilder::wait_for(const catalog::solution& solution) {
  const auto asked = std::chrono::steady_clock::now();
  const auto it = std::find_if(m_slots.begin(), m_slots.end(), [&](const slot& s) { return s.solution == &solution; });
  if (it == m_slots.end()) return {};
  const auto idx = static_cast<std::size_t>(it - m_slots.begin());
  build_wait got;
  std::unique_lock lock(m_mutex);
  got.by = "stage";
  if (m_slots[idx].now == state::pending) {
    m_slots[idx].now = state::running;
    got.by = "turn";
    lock.unlock();
    build(idx);
    lock.lock();
  }
  m_done.wait(lock, [&] { return m_slots[idx].now == state::done; });
  got.outcome = m_slots[idx].outcome;
  got.waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
  return got;
}

build_outcome build_solution(const job_context& ctx, const catalog::solution& solution, const fs::path& data_dir) {
  const fs::path dir = data_dir / "build" / solution.hash.substr(0, 24);
  fs::remove_all(dir);
  copy_solution(solution, dir / "work");
  const fs::path job_file = dir / "job.json";
  write_json(job_file, build_job(ctx, dir));
  // Importing the solution runs its code: the build is sandboxed like the candidate run.
  const candidate_paths paths{data_dir, dir, cache_root(data_dir) / solution.model, {}};
  auto spec = runner_spec(ctx, "build", job_file, dir, dir / "work", paths.cache_dir);
  spec.sandbox = candidate_isolation(ctx, paths);
  prepare_candidate_files(spec.sandbox, paths, false);
  sandbox::posix_process_runner runner;
  const auto result = runner.run(spec);
  const auto events = read_events(dir / "events.jsonl");
  build_outcome outcome;
  outcome.build_s = result.wall_s;
  outcome.ok = result.end == sandbox::process_end::exited && result.exit_code == 0 && events.done;
  if (!outcome.ok) outcome.error = failure_line(result, events);
  ARB_DEBUG("build", "{}: {} in {:.1f} s{}", solution.label(), sandbox::describe(result), result.wall_s,
            result.isolation_note.empty() ? "" : "; sandbox: " + result.isolation_note);
  return outcome;
}

bool reuses_extension_builds(const std::string& torch_version) {
  int major = 0;
  int minor = 0;
  if (std::sscanf(torch_version.c_str(), "%d.%d", &major, &minor) != 2) return true;
  return major > 2 || (major == 2 && minor >= 1);
}

build_policy build_policy_for(const std::string& setting, const std::string& torch_version, const std::string& device) {
  if (setting == "on" || setting == "off") return {setting == "on", setting == "on"};
  if (device == "cpu") return {false, false};
  return {true, reuses_extension_builds(torch_version)};
}

unsigned prebuild_workers() { return std::max(1u, std::thread::hardware_concurrency() / 4); }

} // namespace arbiter::pipeline::detail
