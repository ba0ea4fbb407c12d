// The JSON views against a real SQLite database seeded through the store interface.
#include "arbiter/score/metrics.hpp"
#include "arbiter/server/views.hpp"
#include "detail/pages.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace fs = std::filesystem;
using namespace arbiter;
using arbiter::server::json;

namespace {

class views : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_dir = fs::temp_directory_path() / ("arbiter_views_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    m_db = store::open_store((m_dir / "results.db").string());
    seed();
  }
  void TearDown() override { fs::remove_all(m_dir); }

  void evaluate(const std::string& problem, const std::string& model, verdict v, std::optional<double> speedup,
                const std::string& meta = "{}") {
    const auto problem_id = m_problems.at(problem);
    const auto model_id = m_db->upsert_model(model, "org-" + model);
    const auto solution =
        m_db->upsert_solution(problem_id, model_id, {model, 0, problem + model, (m_dir / model).string(), meta});
    const auto id = m_db->begin_evaluation(m_campaign, solution);
    store::evaluation_result r;
    r.result = {v, v == verdict::passed ? "all cases within tolerance" : "case 0: max abs error 3"};
    r.speedup = speedup;
    if (speedup)
      r.measurements.push_back({"n1k", "candidate", "", "host", 1.0 / *speedup, 0.9 / *speedup, 1.1 / *speedup, 1.0, 0.01, 10,
                                speedup, "steady_clock", std::nullopt, 0, std::nullopt, 0});
    m_db->finish_evaluation(id, r);
  }

  void seed() {
    store::hardware_record hw;
    hw.fingerprint = "fp-1";
    hw.device = "cpu";
    hw.host = "box";
    store::campaign_record wanted;
    wanted.name = "nightly";
    wanted.suite = "kb";
    wanted.device = "cpu";
    wanted.hardware_id = m_db->upsert_hardware(hw);
    m_campaign = m_db->open_campaign(wanted).id;
    m_problems["p1"] = m_db->upsert_problem(
        {"kb", "p1", "h1", "first", 1,
         R"({"tags":["norm"],"shapes":[{"name":"n1k","n":1000}],"roofline":{"flops":"2*n","bytes":"8*n"}})"});
    m_problems["p2"] = m_db->upsert_problem({"kb", "p2", "h2", "second", 2, R"({"tags":["norm","gemm"]})"});
    m_problems["p3"] = m_db->upsert_problem({"kb", "p3", "h3", "third", 2, "{}"});
    m_db->add_campaign_problems(m_campaign, {m_problems["p1"], m_problems["p2"], m_problems["p3"]});
    evaluate("p1", "alpha", verdict::passed, 2.0, R"({"harness":"loop","tokens":{"input":100,"output":50},"cost_usd":0.3})");
    evaluate("p2", "alpha", verdict::incorrect, std::nullopt, R"({"harness":"loop","input_tokens":30,"output_tokens":20})");
    evaluate("p1", "beta", verdict::passed, 0.5);
    evaluate("p2", "beta", verdict::passed, 4.0);
  }

  std::unique_ptr<store::store> m_db;
  fs::path m_dir;
  std::int64_t m_campaign = 0;
  std::map<std::string, std::int64_t> m_problems;
};

const json& row_of(const json& board, const std::string& model) {
  for (const auto& row : board["rows"])
    if (row["model"] == model) return row;
  throw std::runtime_error("no row " + model);
}

} // namespace

TEST(score_fast_p, counts_passes_faster_than_each_threshold_over_all_problems) {
  const std::vector<store::result_row> rows{{"m", "a", 0, verdict::passed, 0.4},
                                            {"m", "b", 0, verdict::passed, 1.0},
                                            {"m", "c", 0, verdict::passed, 2.5},
                                            {"m", "d", 0, verdict::incorrect, {}}};
  const auto s = score::summarize(rows, 4);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_DOUBLE_EQ(s[0].fast_p[0], 0.75); // p = 0
  EXPECT_DOUBLE_EQ(s[0].fast_p[1], 0.5);  // p = 0.5
  EXPECT_DOUBLE_EQ(s[0].fast_p[2], 0.25); // p = 1: 1.0 is not faster than 1
  EXPECT_DOUBLE_EQ(s[0].fast_p[4], 0.25); // p = 2
}

TEST_F(views, leaderboard_has_scores_fast_p_tokens_and_what_it_ranks_by) {
  const json board = server::leaderboard_view(*m_db, m_campaign);
  EXPECT_EQ(board["problems"], 3);
  EXPECT_EQ(board["clock"], "host");
  EXPECT_NE(board["ranked_by"].get<std::string>().find("eager"), std::string::npos);
  EXPECT_EQ(board["fraction_of_peak"]["measured"], false);
  const json& alpha = row_of(board, "alpha");
  EXPECT_DOUBLE_EQ(alpha["pass_at_1"].get<double>(), 1.0 / 3);
  EXPECT_DOUBLE_EQ(alpha["tokens_per_solved"].get<double>(), 200); // (150 + 50) tokens / 1 solved
  EXPECT_DOUBLE_EQ(alpha["cost_per_solved_usd"].get<double>(), 0.3);
  EXPECT_EQ(alpha["harness"], "loop");
  EXPECT_TRUE(alpha["cost_per_solved_usd"].is_number());
  EXPECT_TRUE(alpha["cache_tokens_per_solved"].is_null()); // no meta.json says
  EXPECT_TRUE(alpha["wall_s_per_solved"].is_null());
  EXPECT_TRUE(alpha["fraction_of_peak"].is_null());
  const json& beta = row_of(board, "beta");
  EXPECT_DOUBLE_EQ(beta["fast_p"]["1"].get<double>(), 1.0 / 3);
  EXPECT_TRUE(beta["tokens_per_solved"].is_null());
  EXPECT_EQ(board["problem_list"].size(), 3u);
}

TEST_F(views, leaderboard_rows_are_per_model_and_harness_with_agent_spend) {
  evaluate(
      "p3", "alpha", verdict::passed, 1.0,
      R"({"harness":"claude-code","tokens":{"input":10,"output":20,"cache_read":300,"cache_write":0},"cost_usd":0.25,"wall_s":90})");
  const json board = server::leaderboard_view(*m_db, m_campaign);
  ASSERT_EQ(board["rows"].size(), 3u);
  const json* loop = nullptr;
  const json* claude = nullptr;
  for (const auto& row : board["rows"]) {
    if (row["model"] == "alpha" && row["harness"] == "loop") loop = &row;
    if (row["model"] == "alpha" && row["harness"] == "claude-code") claude = &row;
  }
  ASSERT_TRUE(loop && claude);
  EXPECT_EQ((*loop)["passed"], 1);
  EXPECT_DOUBLE_EQ((*loop)["tokens_per_solved"].get<double>(), 200);
  EXPECT_EQ((*claude)["passed"], 1);
  EXPECT_EQ((*claude)["org"], "org-alpha");
  EXPECT_DOUBLE_EQ((*claude)["tokens_per_solved"].get<double>(), 30);
  EXPECT_DOUBLE_EQ((*claude)["cache_tokens_per_solved"].get<double>(), 300);
  EXPECT_DOUBLE_EQ((*claude)["cost_per_solved_usd"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ((*claude)["wall_s_per_solved"].get<double>(), 90);
}

TEST_F(views, leaderboard_says_which_methods_its_timings_used) {
  const json board = server::leaderboard_view(*m_db, m_campaign);
  EXPECT_EQ(board["baseline"], "eager");
  ASSERT_EQ(board["timing_methods"].size(), 1u);
  EXPECT_EQ(board["timing_methods"][0]["method"], "steady_clock");
  EXPECT_EQ(board["timing_methods"][0]["timings"], 3); // the candidate timing of each of the three passes
  EXPECT_NE(board["ranked_by"].get<std::string>().find("host time (steady clock) per shape on cpu"), std::string::npos)
      << board["ranked_by"];
}

TEST_F(views, fraction_of_peak_appears_only_with_calibrated_peaks) {
  store::hardware_record hw;
  hw.fingerprint = "fp-2";
  hw.device = "cpu";
  hw.json = R"({"peaks":{"flops_per_s":{"float32":1e9},"bytes_per_s":1e9}})";
  store::campaign_record wanted;
  wanted.name = "calibrated";
  wanted.suite = "kb";
  wanted.device = "cpu";
  wanted.hardware_id = m_db->upsert_hardware(hw);
  m_campaign = m_db->open_campaign(wanted).id;
  evaluate("p1", "alpha", verdict::passed, 2.0);
  const json board = server::leaderboard_view(*m_db, m_campaign);
  EXPECT_EQ(board["fraction_of_peak"]["measured"], true);
  // 8000 bytes in 0.5 ms = 16 MB/s of a 1 GB/s peak.
  EXPECT_NEAR(row_of(board, "alpha")["fraction_of_peak"].get<double>(), 0.016, 1e-12);
}

TEST_F(views, model_view_breaks_results_down_by_level_and_tag) {
  const json model = server::model_view(*m_db, m_campaign, "alpha");
  ASSERT_EQ(model["problems"].size(), 3u);
  EXPECT_EQ(model["problems"][2]["reason"], "not attempted");
  ASSERT_EQ(model["by_level"].size(), 2u);
  EXPECT_EQ(model["by_level"][0]["passed"], 1);
  EXPECT_EQ(model["by_level"][1]["problems"], 2);
  EXPECT_EQ(model["by_level"][1]["attempted"], 1);
  ASSERT_EQ(model["by_tag"].size(), 2u); // gemm, norm
  EXPECT_EQ(model["by_tag"][1]["tag"], "norm");
  EXPECT_EQ(model["by_tag"][1]["problems"], 2);
  EXPECT_THROW(server::model_view(*m_db, m_campaign, "nobody"), server::not_found_error);
}

TEST_F(views, problem_view_lists_every_solution_with_shapes_and_work) {
  const json problem = server::problem_view(*m_db, m_campaign, "p1");
  ASSERT_EQ(problem["solutions"].size(), 2u);
  const json& shape = problem["solutions"][0]["shapes"][0];
  EXPECT_EQ(shape["shape"], "n1k");
  EXPECT_DOUBLE_EQ(shape["work"]["bytes"].get<double>(), 8000);
  EXPECT_EQ(problem["solutions"][0]["source"]["file"], nullptr); // the folder does not exist: said, not thrown
  EXPECT_THROW(server::problem_view(*m_db, m_campaign, "nope"), server::not_found_error);
  EXPECT_THROW(server::problem_view(*m_db, 999, "p1"), server::not_found_error);
}

TEST_F(views, progress_counts_running_and_finished_evaluations) {
  const auto model_id = m_db->upsert_model("gamma", "");
  const auto solution = m_db->upsert_solution(m_problems["p3"], model_id, {"gamma", 0, "g", "", "{}"});
  m_db->begin_evaluation(m_campaign, solution);
  const json progress = server::progress_view(*m_db, m_campaign);
  EXPECT_EQ(progress["done"], 4);
  EXPECT_EQ(progress["evaluations"], 5);
  ASSERT_EQ(progress["running"].size(), 1u);
  EXPECT_EQ(progress["running"][0]["model"], "gamma");
  EXPECT_EQ(progress["verdicts"]["passed"], 3);
  EXPECT_EQ(progress["finished"], false);
}

TEST_F(views, evaluation_view_has_the_rerun_command_and_unknown_ids_are_not_found) {
  const json e = server::evaluation_view(*m_db, 1, "results.db");
  EXPECT_EQ(e["verdict"], "passed");
  EXPECT_NE(e["rerun"].get<std::string>().find("--problems p1 --models alpha"), std::string::npos);
  EXPECT_TRUE(e["log"].contains("error"));
  EXPECT_THROW(server::evaluation_view(*m_db, 12345, "results.db"), server::not_found_error);
}

TEST_F(views, an_evaluation_shows_the_clock_state_each_timing_ran_in) {
  const auto model_id = m_db->upsert_model("gamma", "");
  const auto solution = m_db->upsert_solution(m_problems["p3"], model_id, {"gamma", 0, "g", "", "{}"});
  const auto id = m_db->begin_evaluation(m_campaign, solution);
  store::evaluation_result r;
  r.result = {verdict::passed, "all cases within tolerance"};
  r.speedup = 1.5;
  r.measurements.push_back(
      {"n1k", "candidate", "", "cupti", 0.3, 0.29, 0.31, 0.3, 0.001, 426, 1.5, "cupti_span", 0.4, 2, 1965.0, 358});
  r.measurements.push_back({"n1k", "baseline", "eager", "host", 0.45, 0.44, 0.46, 0.45, 0.001, 50, std::nullopt, "steady_clock",
                            std::nullopt, 0, std::nullopt, 0});
  m_db->finish_evaluation(id, r);
  const json e = server::evaluation_view(*m_db, id, "results.db");
  ASSERT_EQ(e["measurements"].size(), 2u);
  EXPECT_EQ(e["measurements"][0]["sm_clock_mhz"], 1965.0);
  EXPECT_EQ(e["measurements"][0]["power_capped"], 358);
  EXPECT_TRUE(e["measurements"][1]["sm_clock_mhz"].is_null());
  const std::string page = server::detail::evaluation_page(e, {});
  EXPECT_NE(page.find("<td>0.4000</td><td>1965</td><td>358</td><td>2</td><td>cupti_span</td>"), std::string::npos) << page;
  EXPECT_NE(page.find("<td>—</td><td>—</td><td>—</td><td>0</td><td>steady_clock</td>"), std::string::npos); // no clock read
  const json shapes = server::problem_view(*m_db, m_campaign, "p3")["solutions"][0]["shapes"];
  EXPECT_EQ(shapes[0]["candidate"]["power_capped"], 358);
}
