#pragma once
/// A campaign's evaluations in their order, and what is started ahead of its turn
/// (docs/measurement.md, "Throughput"): the candidate processes of the next evaluations, across
/// problems, and the reference processes of their problems, each waiting behind its gate; a
/// problem's first candidates wait beside its reference while it runs.
#include "arbiter/catalog/problem.hpp"
#include "arbiter/catalog/solution.hpp"
#include "arbiter/sandbox/process.hpp"
#include "arbiter/store/store.hpp"
#include "detail/jobs.hpp"
#include "detail/runs.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace arbiter::pipeline::detail {

/// One evaluation in the campaign's order.
struct queued_evaluation {
  const catalog::problem* problem = nullptr;
  const job_context* ctx = nullptr; ///< the problem's
  const catalog::solution* solution = nullptr;
  std::int64_t solution_id = 0;

  /// Whether it runs a candidate (and so needs its problem's reference): the solution runs on
  /// the device and the problem has shapes for it.
  bool runs_candidate() const;
};

/// Where the evaluations go and what their references are made with.
struct lookahead_env {
  store::store& db;
  sandbox::process_runner& runner;
  std::int64_t campaign_id = 0;
  std::vector<std::uint64_t> seeds;
  std::string hardware_fingerprint;
  std::filesystem::path data_dir;
};

class lookahead {
 public:
  /// depth: how many candidate processes are started ahead of the running one; 0 starts nothing
  /// ahead and runs each reference at its turn.
  lookahead(std::vector<queued_evaluation> queue, int depth, lookahead_env env);

  std::size_t size() const { return m_queue.size(); }
  const queued_evaluation& at(std::size_t idx) const { return m_queue.at(idx); }
  /// Whether idx is the last evaluation of its problem.
  bool last_of_problem(std::size_t idx) const;

  /// The evaluation's row in the store, begun at the first call (which may come when its
  /// candidate is started ahead).
  std::int64_t eval_id(std::size_t idx);
  std::filesystem::path eval_dir(std::size_t idx);
  sandbox::process_runner& runner() { return m_env.runner; }

  /// Whether evaluation idx's problem's reference has run (or was found cached).
  bool reference_ready(std::size_t idx) const;
  /// The reference of evaluation idx's problem, run at the first call: its process opened when it
  /// was started ahead, else run now with the candidates of the next `depth` evaluations (idx
  /// included) started beside it. When it fails, the candidates started for its problem are
  /// killed behind their gates. Throws io_error when its folder cannot be made.
  const reference_run& reference(std::size_t idx);

  /// The candidate started ahead for evaluation idx, if any.
  std::optional<started_candidate> take(std::size_t idx);

  /// Starts the candidates of the evaluations after idx, up to `depth` positions on, that run
  /// one and have none yet, with their problems' references when those have not run. A start
  /// that fails is left to that evaluation's own turn, which meets the same failure and records it.
  void start_after(std::size_t idx);

 private:
  struct reference_slot {
    reference_plan plan;
    std::unique_ptr<sandbox::started_process> started; ///< behind its gate until reference()
    std::optional<reference_run> run;
  };

  reference_slot& slot(std::size_t idx);
  /// Candidates of [from, to); the references of their problems too, but runs_now's, which the
  /// caller is about to run.
  void start_window(std::size_t from, std::size_t to, const catalog::problem* runs_now = nullptr);
  void start_one(std::size_t idx, bool with_reference);
  void drop_started(const catalog::problem* problem);

  std::vector<queued_evaluation> m_queue;
  int m_depth = 0;
  lookahead_env m_env;
  std::map<const catalog::problem*, reference_slot> m_references; ///< planned at first need
  std::map<std::size_t, std::int64_t> m_eval_ids;
  std::map<std::size_t, started_candidate> m_started; ///< destroyed: processes never opened are killed
};

} // namespace arbiter::pipeline::detail
