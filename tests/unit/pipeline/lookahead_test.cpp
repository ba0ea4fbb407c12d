// The lookahead's schedule without real processes: what is started ahead, what is opened at its
// turn, what is killed behind its gate.
#include "detail/lookahead.hpp"

#include "arbiter/store/store.hpp"
#include "../runtime/test_dir.hpp"
#include "arbiter/common/frames.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <fstream>
#include <iterator>
#include <set>

namespace fs = std::filesystem;
using namespace arbiter;
using namespace arbiter::pipeline;

namespace {

/// Names each process after what it runs: "ref <problem>", or "cand <problem>/<model>" from the
/// first line of the solution's kernel.py; logs starts, runs, opens, finishes and kills.
class fake_runner final : public sandbox::process_runner {
 public:
  std::vector<std::string> log;
  std::set<std::string> failing; ///< problems whose reference fails

  sandbox::process_result run(const sandbox::process_spec& spec) override {
    if (spec.argv.at(3) == "facts") { // python3 -m arbiter_runner facts <work> --out <file>
      std::ofstream(spec.argv.back()) << R"({"version": 1, "files": [], "languages": ["torch"], "facts": []})";
      return exited(0);
    }
    log.push_back("run " + name_of(spec));
    return complete(spec);
  }
  std::unique_ptr<sandbox::started_process> start(const sandbox::process_spec& spec) override;

  sandbox::process_result complete(const sandbox::process_spec& spec) {
    const std::string name = name_of(spec);
    const bool fails = name.starts_with("ref ") && failing.contains(name.substr(4));
    if (!fails) std::ofstream(spec.channel_path, std::ios::app) << arbiter::encode_frame(0, {{"event", "done"}});
    return exited(fails ? 1 : 0);
  }

  static std::string name_of(const sandbox::process_spec& spec) {
    const fs::path job = spec.argv.at(4);
    if (spec.argv.at(3) == "reference") {
      const std::string folder = job.parent_path().filename().string();
      return "ref " + folder.substr(0, folder.find('-'));
    }
    std::ifstream kernel(job.parent_path() / "work" / "kernel.py");
    std::string line;
    std::getline(kernel, line);
    return "cand " + line.substr(2);
  }

 private:
  static sandbox::process_result exited(int code) {
    sandbox::process_result r;
    r.end = sandbox::process_end::exited;
    r.exit_code = code;
    return r;
  }
};

class fake_process final : public sandbox::started_process {
 public:
  fake_process(fake_runner& runner, sandbox::process_spec spec) : m_runner(runner), m_spec(std::move(spec)) {}
  ~fake_process() override {
    if (!m_finished) m_runner.log.push_back("kill " + fake_runner::name_of(m_spec));
  }
  void open() override { m_runner.log.push_back("open " + fake_runner::name_of(m_spec)); }
  sandbox::process_result finish() override {
    m_finished = true;
    m_runner.log.push_back("finish " + fake_runner::name_of(m_spec));
    auto r = m_runner.complete(m_spec);
    r.gated_s = 0.5;
    return r;
  }

 private:
  fake_runner& m_runner;
  sandbox::process_spec m_spec;
  bool m_finished = false;
};

std::unique_ptr<sandbox::started_process> fake_runner::start(const sandbox::process_spec& spec) {
  log.push_back("start " + name_of(spec));
  return std::make_unique<fake_process>(*this, spec);
}

class lookahead_fixture : public ::testing::Test {
 protected:
  void SetUp() override {
    m_options.sandbox = false;
    m_options.python = "python3";
    m_db = store::open_store((m_root / "r.db").string());
    m_hardware_id = m_db->upsert_hardware({"fp", "cpu", "", 0, 0, 0, "", "", "", "", "", "{}"});
    store::campaign_record wanted;
    wanted.name = "c";
    wanted.suite = "s";
    wanted.device = "cpu";
    wanted.hardware_id = m_hardware_id;
    wanted.seeds = {1, 2};
    m_campaign = m_db->open_campaign(wanted);
  }
  void add_problem(const std::string& id, const std::vector<std::string>& models) {
    auto& problem = m_problems.emplace_back();
    problem.id = id;
    problem.hash = id + "-hash";
    problem.shapes = {catalog::shape{"n", {}, nlohmann::json::object()}};
    m_contexts.push_back(std::make_unique<detail::job_context>(detail::job_context{m_options, m_paths, "cpu", problem.shapes}));
    const std::int64_t problem_id = m_db->upsert_problem({"s", id, problem.hash, id, 1, "{}"});
    for (const auto& model : models) {
      auto& solution = m_solutions.emplace_back();
      solution.problem_id = id;
      solution.model = model;
      solution.dir = m_root / "solutions" / id / model;
      solution.files = {"kernel.py"};
      solution.hash = id + model;
      fs::create_directories(solution.dir);
      std::ofstream(solution.dir / "kernel.py") << "# " << id << "/" << model << '\n';
      const std::int64_t model_id = m_db->upsert_model(model, "");
      m_solution_ids.push_back(
          m_db->upsert_solution(problem_id, model_id, {model, 0, solution.hash, solution.dir.string(), "{}"}));
      m_owner.push_back(m_problems.size() - 1);
    }
  }

  detail::lookahead queue(int depth) {
    std::vector<detail::queued_evaluation> items;
    for (std::size_t idx = 0; idx < m_solutions.size(); ++idx)
      items.push_back({&m_problems[m_owner[idx]], m_contexts[m_owner[idx]].get(), &m_solutions[idx], m_solution_ids[idx]});
    return {std::move(items), depth, {*m_db, m_runner, m_campaign.id, m_campaign.seeds, "fp", m_root / "data"}};
  }

  /// What campaign.cpp's evaluate does with the queue, each candidate finished at once.
  void evaluate(detail::lookahead& q, std::size_t idx) {
    const auto& reference = q.reference(idx);
    if (!reference.ok) return;
    auto own = q.take(idx);
    if (!own)
      own =
          detail::start_candidate(*q.at(idx).ctx, *q.at(idx).solution, reference.dir, q.eval_dir(idx), m_root / "data", m_runner);
    detail::open_candidate(*own, reference.dir);
    q.start_after(idx);
    detail::finish_candidate(*own);
  }

  runtime::test_support::process_dir m_dir{"arbiter_lookahead_"};
  const fs::path m_root = m_dir.path();
  eval_options m_options;
  runner_paths m_paths;
  std::unique_ptr<store::store> m_db;
  std::int64_t m_hardware_id = 0;
  store::campaign_record m_campaign;
  std::deque<catalog::problem> m_problems;
  std::vector<std::unique_ptr<detail::job_context>> m_contexts;
  std::deque<catalog::solution> m_solutions;
  std::vector<std::int64_t> m_solution_ids;
  std::vector<std::size_t> m_owner;
  fake_runner m_runner;
};

std::vector<std::string> without_finishes(const std::vector<std::string>& log) {
  std::vector<std::string> out;
  std::copy_if(log.begin(), log.end(), std::back_inserter(out),
               [](const auto& line) { return !line.starts_with("finish cand"); });
  return out;
}

} // namespace

TEST_F(lookahead_fixture, without_depth_each_reference_and_candidate_runs_at_its_turn) {
  add_problem("a", {"m0", "m1"});
  add_problem("b", {"m0"});
  auto q = queue(0);
  for (std::size_t idx = 0; idx < q.size(); ++idx) evaluate(q, idx);
  EXPECT_EQ(without_finishes(m_runner.log),
            // A reference at its turn is started and finished at once: the started process is what
            // reads its CPU time for the outside clock.
            (std::vector<std::string>{"start ref a", "finish ref a", "start cand a/m0", "open cand a/m0", "start cand a/m1",
                                      "open cand a/m1", "start ref b", "finish ref b", "start cand b/m0", "open cand b/m0"}));
}

TEST_F(lookahead_fixture, the_first_candidates_wait_beside_the_reference_and_the_next_problems_start_ahead) {
  add_problem("a", {"m0", "m1"});
  add_problem("b", {"m0", "m1"});
  auto q = queue(2);
  evaluate(q, 0);
  EXPECT_FALSE(q.reference(0).started_ahead);
  evaluate(q, 1);
  EXPECT_TRUE(q.last_of_problem(1));
  evaluate(q, 2);
  EXPECT_TRUE(q.reference(2).started_ahead);
  EXPECT_EQ(q.reference(2).gated_s, 0.5);
  evaluate(q, 3);
  EXPECT_EQ(without_finishes(m_runner.log),
            (std::vector<std::string>{"start cand a/m0", "start cand a/m1", "start ref a",
                                      "finish ref a",                                     // a's first two beside its reference
                                      "open cand a/m0", "start ref b", "start cand b/m0", // b's reference ahead of its turn
                                      "open cand a/m1", "start cand b/m1",                // the window: two on
                                      "finish ref b", "open cand b/m0", "open cand b/m1"}));
}

TEST_F(lookahead_fixture, a_failing_reference_kills_the_candidates_waiting_for_it_and_no_other) {
  add_problem("a", {"m0"});
  add_problem("b", {"m0", "m1"});
  add_problem("c", {"m0"});
  m_runner.failing = {"b"};
  auto q = queue(2);
  for (std::size_t idx = 0; idx < q.size(); ++idx) evaluate(q, idx);
  EXPECT_FALSE(q.reference(1).ok);
  EXPECT_NE(q.reference(1).failure.find("reference failed"), std::string::npos);
  const auto& log = m_runner.log;
  for (const char* line : {"kill cand b/m0", "kill cand b/m1", "open cand c/m0"})
    EXPECT_NE(std::find(log.begin(), log.end(), line), log.end()) << line;
  for (const char* line : {"open cand b/m0", "open cand b/m1", "kill cand c/m0", "kill cand a/m0"})
    EXPECT_EQ(std::find(log.begin(), log.end(), line), log.end()) << line;
}

TEST_F(lookahead_fixture, a_cached_reference_is_not_run_again) {
  add_problem("a", {"m0", "m1"});
  {
    auto q = queue(2);
    evaluate(q, 0);
  }
  m_runner.log.clear();
  auto q = queue(2);
  evaluate(q, 1);
  EXPECT_TRUE(q.reference(1).ok);
  EXPECT_EQ(
      std::count_if(m_runner.log.begin(), m_runner.log.end(), [](const auto& l) { return l.find("ref a") != std::string::npos; }),
      0);
}
