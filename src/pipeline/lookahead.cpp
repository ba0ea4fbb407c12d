#include "detail/lookahead.hpp"

#include "arbiter/common/log.hpp"

#include <algorithm>

namespace arbiter::pipeline::detail {

namespace fs = std::filesystem;

bool queued_evaluation::runs_candidate() const { return solution->runs_on(ctx->device) && !ctx->shapes.empty(); }

lookahead::lookahead(std::vector<queued_evaluation> queue, int depth, lookahead_env env)
    : m_queue(std::move(queue)), m_depth(std::max(0, depth)), m_env(std::move(env)) {}

bool lookahead::last_of_problem(std::size_t idx) const {
  return idx + 1 == m_queue.size() || m_queue[idx + 1].problem != m_queue[idx].problem;
}

std::int64_t lookahead::eval_id(std::size_t idx) {
  if (auto it = m_eval_ids.find(idx); it != m_eval_ids.end()) return it->second;
  return m_eval_ids[idx] = m_env.db.begin_evaluation(m_env.campaign_id, m_queue.at(idx).solution_id);
}

fs::path lookahead::eval_dir(std::size_t idx) { return m_env.data_dir / "evals" / std::to_string(eval_id(idx)); }

bool lookahead::reference_ready(std::size_t idx) const {
  const auto it = m_references.find(m_queue.at(idx).problem);
  return it != m_references.end() && it->second.run.has_value();
}

lookahead::reference_slot& lookahead::slot(std::size_t idx) {
  const queued_evaluation& item = m_queue.at(idx);
  if (auto it = m_references.find(item.problem); it != m_references.end()) return it->second;
  // Planned before it is stored: a folder that cannot be made is planned (and fails) again at its turn.
  reference_plan plan = plan_reference(*item.ctx, *item.problem, m_env.seeds, m_env.hardware_fingerprint, m_env.data_dir);
  return m_references[item.problem] = {std::move(plan), nullptr, std::nullopt};
}

const reference_run& lookahead::reference(std::size_t idx) {
  reference_slot& s = slot(idx);
  if (s.run) return *s.run;
  if (m_depth > 0) start_window(idx, idx + static_cast<std::size_t>(m_depth), m_queue[idx].problem);
  s.run = finish_reference(s.plan, std::move(s.started), m_env.runner);
  if (!s.run->ok) drop_started(m_queue[idx].problem);
  return *s.run;
}

std::optional<started_candidate> lookahead::take(std::size_t idx) {
  const auto it = m_started.find(idx);
  if (it == m_started.end()) return std::nullopt;
  std::optional<started_candidate> out(std::move(it->second));
  m_started.erase(it);
  return out;
}

void lookahead::start_after(std::size_t idx) {
  if (m_depth > 0) start_window(idx + 1, idx + 1 + static_cast<std::size_t>(m_depth));
}

void lookahead::start_window(std::size_t from, std::size_t to, const catalog::problem* runs_now) {
  for (std::size_t idx = from; idx < std::min(to, m_queue.size()); ++idx) {
    if (m_started.count(idx) != 0 || !m_queue[idx].runs_candidate()) continue;
    try {
      start_one(idx, m_queue[idx].problem != runs_now);
    } catch (const std::exception& e) {
      ARB_DEBUG("eval", "{}: not started ahead: {}", m_queue[idx].solution->label(), e.what());
    }
  }
}

void lookahead::start_one(std::size_t idx, bool with_reference) {
  reference_slot& s = slot(idx);
  if (s.run && !s.run->ok) return; // its evaluation ends without a candidate
  if (with_reference && !s.run && !s.started) s.started = start_reference(s.plan, m_env.runner);
  const queued_evaluation& item = m_queue[idx];
  m_started.emplace(idx, start_candidate(*item.ctx, *item.solution, s.plan.dir, eval_dir(idx), m_env.data_dir, m_env.runner));
}

void lookahead::drop_started(const catalog::problem* problem) {
  std::erase_if(m_started, [&](const auto& entry) { return m_queue[entry.first].problem == problem; });
}

} // namespace arbiter::pipeline::detail
