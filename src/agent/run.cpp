#include "arbiter/agent/run.hpp"

#include "arbiter/catalog/suite.hpp"
#include "arbiter/common/log.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

namespace arbiter::agent {

namespace {

std::vector<const catalog::problem*> select_problems(const catalog::suite& s, const std::vector<std::string>& wanted) {
  std::vector<const catalog::problem*> out;
  for (const auto& id : wanted)
    if (!s.find(id)) ARB_THROW(config_error, "--problems: suite " + s.name + " has no problem '" + id + "'");
  for (const auto& problem : s.problems)
    if (wanted.empty() || std::find(wanted.begin(), wanted.end(), problem.id) != wanted.end()) out.push_back(&problem);
  if (out.empty()) ARB_THROW(config_error, "suite " + s.name + ": no problem selected");
  return out;
}

session_result guarded_session(const run_options& options, const catalog::problem& problem, http_client& client,
                               sandbox::process_runner& runner, const sleeper& sleep) {
  try {
    ARB_INFO("agent", "{}/{}: starting", problem.id, options.session.endpoint.model);
    session_result result = run_session(options.session, problem, client, runner, sleep);
    ARB_INFO("agent", "{}/{}: {} after {} turns, {} tokens{}", problem.id, result.model, to_string(result.reason), result.turns,
             result.used.total(), result.error.empty() ? "" : " (" + result.error + ")");
    return result;
  } catch (const error& e) {
    ARB_ERROR("agent", "{}", e.what());
    session_result failed;
    failed.problem = problem.id;
    failed.model = options.session.endpoint.model;
    failed.error = e.what();
    return failed;
  }
}

} // namespace

std::vector<session_result> run_sessions(const run_options& options, const client_factory& make_client,
                                         sandbox::process_runner& runner, const sleeper& sleep) {
  const catalog::suite s = catalog::load_suite(options.suite_dir);
  const auto problems = select_problems(s, options.problems);
  std::vector<session_result> results(problems.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    const auto client = make_client();
    for (std::size_t problem_idx = next++; problem_idx < problems.size(); problem_idx = next++)
      results[problem_idx] = guarded_session(options, *problems[problem_idx], *client, runner, sleep);
  };
  const std::size_t workers = std::min<std::size_t>(problems.size(), static_cast<std::size_t>(std::max(1, options.parallel)));
  std::vector<std::thread> threads;
  for (std::size_t worker_idx = 1; worker_idx < workers; ++worker_idx) threads.emplace_back(worker);
  worker();
  for (auto& thread : threads) thread.join();
  return results;
}

} // namespace arbiter::agent
