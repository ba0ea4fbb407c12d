#include "arbiter/common/error.hpp"
#include "arbiter/store/rerun.hpp"
#include "arbiter/store/store.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <limits>
#include <string>

namespace fs = std::filesystem;
using namespace arbiter;
using namespace arbiter::store;

namespace {

/// Runs one query against the raw file and returns the first column of the first row as text.
std::string raw_query(const fs::path& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::string out;
  const int rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW && sqlite3_column_text(stmt, 0)) out = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  EXPECT_TRUE(rc == SQLITE_ROW || rc == SQLITE_DONE) << sqlite3_errmsg(db);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return out;
}

class store_sqlite : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_dir = fs::temp_directory_path() / ("arbiter_store_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    m_path = m_dir / "results.db";
  }
  void TearDown() override { fs::remove_all(m_dir); }

  /// A campaign with one problem and one model's solution, ready for evaluations.
  struct fixture_ids {
    std::int64_t campaign, problem, model, solution;
  };
  fixture_ids seed_campaign(store::store& db, const std::string& problem_key = "l1.softmax", const std::string& model = "opus",
                            int sample = 0) {
    fixture_ids ids{};
    ids.problem = db.upsert_problem({"kb", problem_key, "h-" + problem_key, "", 1, "{}"});
    ids.model = db.upsert_model(model, "");
    ids.solution = db.upsert_solution(ids.problem, ids.model,
                                      {model, sample, "s-" + problem_key + model + std::to_string(sample), "p", "{}"});
    campaign_record wanted;
    wanted.name = "nightly";
    wanted.suite = "kb";
    ids.campaign = db.open_campaign(wanted).id;
    return ids;
  }

  static evaluation_result passed_result(double speedup) {
    evaluation_result r;
    r.result = {verdict::passed, "all cases within tolerance"};
    r.speedup = speedup;
    r.wall_s = 3.5;
    r.details_json = R"({"cases":4})";
    r.artifacts_dir = "artifacts/1";
    measurement_record m;
    m.shape = "4096x4096";
    m.role = "candidate";
    m.clock = "cuda_event";
    m.median_ms = 0.5;
    m.p10_ms = 0.45;
    m.p90_ms = 0.6;
    m.mean_ms = 0.52;
    m.samples = 100;
    m.rel_noise = 0.01;
    m.speedup = speedup;
    m.method = "held_events";
    m.host_median_ms = 0.61;
    m.throttled = 2;
    m.sm_clock_mhz = 1965;
    m.power_capped = 358;
    r.measurements.push_back(m);
    m.host_median_ms.reset();
    m.sm_clock_mhz.reset();
    m.power_capped = 0;
    m.role = "baseline";
    m.baseline = "eager";
    m.median_ms = 1.0;
    m.speedup.reset();
    r.measurements.push_back(m);
    return r;
  }

  fs::path m_dir;
  fs::path m_path;
};

} // namespace

TEST_F(store_sqlite, migrations_are_applied_once_and_reopen_is_idempotent) {
  open_store(m_path.string());
  const std::string applied_at = raw_query(m_path, "SELECT applied_at FROM schema_migrations WHERE version = 1");
  EXPECT_FALSE(applied_at.empty());
  open_store(m_path.string());
  EXPECT_EQ(raw_query(m_path, "SELECT COUNT(*) FROM schema_migrations"), "5"); // one row per migration (src/store/migrations.cpp)
  EXPECT_EQ(raw_query(m_path, "SELECT applied_at FROM schema_migrations WHERE version = 1"), applied_at);
  EXPECT_EQ(raw_query(m_path, "PRAGMA journal_mode"), "wal");
  for (const char* table :
       {"hardware", "problem", "model", "solution", "campaign", "evaluation", "measurement", "finding", "annotation"})
    EXPECT_EQ(raw_query(m_path, std::string("SELECT COUNT(*) FROM sqlite_master WHERE name = '") + table + "'"), "1") << table;
}

TEST_F(store_sqlite, newer_schema_is_refused) {
  open_store(m_path.string());
  raw_query(m_path, "INSERT INTO schema_migrations VALUES (999, 'from the future', '2099-01-01T00:00:00Z')");
  try {
    open_store(m_path.string());
    FAIL() << "a database from a newer arbiter was opened";
  } catch (const store_error& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 999"), std::string::npos) << e.what();
  }
}

static hardware_record hardware_row(const std::string& fingerprint, const std::string& json) {
  hardware_record hw;
  hw.fingerprint = fingerprint;
  hw.device = "cuda";
  hw.gpu_name = "NVIDIA H200";
  hw.json = json;
  return hw;
}

TEST_F(store_sqlite, merge_hardware_json_sets_keys_and_keeps_the_rest) {
  auto db = open_store(m_path.string());
  const hardware_record hw = hardware_row("fp-calibrated", R"({"host":"node1","peaks":{"bytes_per_s":1}})");
  const auto hw_id = db->upsert_hardware(hw);
  db->merge_hardware_json(hw_id, R"({"peaks":{"bytes_per_s":4.0e12,"flops_per_s":{"bfloat16":8.0e14}}})");
  const auto list = db->hardware_list();
  ASSERT_EQ(list.size(), 1u);
  const auto stored = nlohmann::json::parse(list[0].record.json);
  EXPECT_EQ(stored["host"], "node1");
  EXPECT_DOUBLE_EQ(stored["peaks"]["bytes_per_s"].get<double>(), 4.0e12);
  EXPECT_DOUBLE_EQ(stored["peaks"]["flops_per_s"]["bfloat16"].get<double>(), 8.0e14);
  EXPECT_EQ(list[0].record.fingerprint, "fp-calibrated");
  EXPECT_EQ(list[0].record.gpu_name, "NVIDIA H200");
  EXPECT_EQ(db->upsert_hardware(hw), hw_id); // the same fingerprint still finds the row, peaks kept
  EXPECT_EQ(nlohmann::json::parse(db->hardware_list()[0].record.json)["peaks"]["bytes_per_s"].get<double>(), 4.0e12);
}

TEST_F(store_sqlite, merge_hardware_json_refuses_unknown_rows_and_non_objects) {
  auto db = open_store(m_path.string());
  const auto hw_id = db->upsert_hardware(hardware_row("fp1", ""));
  EXPECT_THROW(db->merge_hardware_json(hw_id + 1, R"({"peaks":{}})"), store_error);
  EXPECT_THROW(db->merge_hardware_json(hw_id, "[1,2]"), store_error);
  EXPECT_THROW(db->merge_hardware_json(hw_id, "not json"), store_error);
  EXPECT_EQ(nlohmann::json::parse(db->hardware_list()[0].record.json), nlohmann::json::object());
}

TEST_F(store_sqlite, postgres_location_is_a_config_error) {
  EXPECT_THROW(open_store("postgresql://localhost/arbiter"), config_error);
  EXPECT_THROW(open_store(""), config_error);
}

TEST_F(store_sqlite, unopenable_path_is_a_store_error) {
  EXPECT_THROW(open_store((m_dir / "missing" / "dir" / "results.db").string()), store_error);
}

TEST_F(store_sqlite, upserts_find_the_same_ids) {
  auto db = open_store(m_path.string());
  hardware_record hw;
  hw.fingerprint = "fp1";
  hw.device = "cuda";
  const auto hw_id = db->upsert_hardware(hw);
  EXPECT_EQ(db->upsert_hardware(hw), hw_id);
  hw.fingerprint = "fp2";
  EXPECT_NE(db->upsert_hardware(hw), hw_id);

  const problem_record problem{"kb", "l1.softmax", "hash-a", "Row softmax", 1, "{}"};
  const auto problem_id = db->upsert_problem(problem);
  EXPECT_EQ(db->upsert_problem(problem), problem_id);
  auto edited = problem;
  edited.hash = "hash-b";
  EXPECT_NE(db->upsert_problem(edited), problem_id);

  const auto model_id = db->upsert_model("opus", "");
  EXPECT_EQ(db->upsert_model("opus", "anthropic"), model_id);
  EXPECT_EQ(raw_query(m_path, "SELECT org FROM model WHERE name = 'opus'"), "anthropic");
  EXPECT_EQ(db->upsert_model("opus", "someone else"), model_id);
  EXPECT_EQ(raw_query(m_path, "SELECT org FROM model WHERE name = 'opus'"), "anthropic");

  const solution_record solution{"opus", 0, "sol-hash", "solutions/l1.softmax/opus", "{}"};
  const auto solution_id = db->upsert_solution(problem_id, model_id, solution);
  EXPECT_EQ(db->upsert_solution(problem_id, model_id, solution), solution_id);
  auto second_sample = solution;
  second_sample.sample = 1;
  EXPECT_NE(db->upsert_solution(problem_id, model_id, second_sample), solution_id);
}

TEST_F(store_sqlite, errors_name_the_statement_and_sqlite_message) {
  auto db = open_store(m_path.string());
  try {
    db->upsert_solution(42, 43, {"ghost", 0, "h", "p", "{}"});
    FAIL() << "a solution for a missing problem was stored";
  } catch (const store_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("insert solution ghost sample 0"), std::string::npos) << what;
    EXPECT_NE(what.find("FOREIGN KEY constraint failed"), std::string::npos) << what;
  }
}

TEST_F(store_sqlite, open_campaign_returns_stored_seeds_on_resume) {
  auto db = open_store(m_path.string());
  campaign_record wanted;
  wanted.name = "nightly";
  wanted.suite = "kb";
  wanted.device = "cuda";
  wanted.seeds = {1, std::numeric_limits<std::uint64_t>::max(), 9007199254740993ull};
  const auto created = db->open_campaign(wanted);
  EXPECT_GT(created.id, 0);
  EXPECT_EQ(created.status, "running");
  EXPECT_EQ(created.seeds, wanted.seeds);

  auto reopened_wanted = wanted;
  reopened_wanted.seeds = {7};
  auto reopened = open_store(m_path.string())->open_campaign(reopened_wanted);
  EXPECT_EQ(reopened.id, created.id);
  EXPECT_EQ(reopened.seeds, wanted.seeds);
  EXPECT_EQ(raw_query(m_path, "SELECT seeds_json FROM campaign"), R"(["1","18446744073709551615","9007199254740993"])");
}

TEST_F(store_sqlite, campaigns_are_listed_most_recent_first_and_status_persists) {
  auto db = open_store(m_path.string());
  campaign_record wanted;
  wanted.name = "first";
  const auto first = db->open_campaign(wanted);
  wanted.name = "second";
  db->open_campaign(wanted);
  db->set_campaign_status(first.id, "finished");
  const auto all = db->campaigns();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "second");
  EXPECT_EQ(all[1].name, "first");
  EXPECT_EQ(db->find_campaign("first")->status, "finished");
  EXPECT_FALSE(db->find_campaign("third").has_value());
  EXPECT_THROW(db->set_campaign_status(12345, "finished"), store_error);
}

TEST_F(store_sqlite, finished_evaluation_is_found_only_after_finish) {
  auto db = open_store(m_path.string());
  const auto ids = seed_campaign(*db);
  EXPECT_FALSE(db->finished_evaluation(ids.campaign, ids.solution).has_value());
  const auto eval_id = db->begin_evaluation(ids.campaign, ids.solution);
  EXPECT_FALSE(db->finished_evaluation(ids.campaign, ids.solution).has_value());
  EXPECT_EQ(db->evaluation(eval_id)->status, "running");

  db->finish_evaluation(eval_id, passed_result(2.0));
  EXPECT_EQ(db->finished_evaluation(ids.campaign, ids.solution), eval_id);
  const auto view = db->evaluation(eval_id);
  ASSERT_TRUE(view.has_value());
  EXPECT_EQ(view->status, "done");
  EXPECT_EQ(view->campaign, "nightly");
  EXPECT_EQ(view->problem, "l1.softmax");
  EXPECT_EQ(view->model, "opus");
  EXPECT_EQ(view->result.result.v, verdict::passed);
  EXPECT_EQ(view->result.result.reason, "all cases within tolerance");
  EXPECT_EQ(view->result.speedup, 2.0);
  EXPECT_EQ(view->result.details_json, R"({"cases":4})");
  EXPECT_FALSE(view->finished_at.empty());
  ASSERT_EQ(view->result.measurements.size(), 2u);
  EXPECT_EQ(view->result.measurements[0].speedup, 2.0);
  EXPECT_EQ(view->result.measurements[0].method, "held_events");
  EXPECT_EQ(view->result.measurements[0].host_median_ms, 0.61);
  EXPECT_EQ(view->result.measurements[0].throttled, 2);
  EXPECT_EQ(view->result.measurements[0].sm_clock_mhz, 1965.0);
  EXPECT_EQ(view->result.measurements[0].power_capped, 358);
  EXPECT_FALSE(view->result.measurements[1].sm_clock_mhz.has_value());
  EXPECT_EQ(view->result.measurements[1].baseline, "eager");
  EXPECT_FALSE(view->result.measurements[1].speedup.has_value());
  EXPECT_FALSE(view->result.measurements[1].host_median_ms.has_value());
  EXPECT_THROW(db->begin_evaluation(ids.campaign, ids.solution), store_error);
  EXPECT_THROW(db->finish_evaluation(9999, passed_result(1.0)), store_error);
  EXPECT_FALSE(db->evaluation(9999).has_value());
}

TEST_F(store_sqlite, begin_evaluation_restart_clears_measurements) {
  const auto ids = seed_campaign(*open_store(m_path.string()));
  const auto eval_id = open_store(m_path.string())->begin_evaluation(ids.campaign, ids.solution);
  // What an interrupted attempt could have left behind.
  raw_query(m_path,
            "INSERT INTO measurement(evaluation_id, shape, role, clock, median_ms, p10_ms, p90_ms, mean_ms, "
            "samples, rel_noise) VALUES (" +
                std::to_string(eval_id) + ", 's', 'candidate', 'host', 1, 1, 1, 1, 1, 0)");
  ASSERT_EQ(raw_query(m_path, "SELECT COUNT(*) FROM measurement"), "1");

  EXPECT_EQ(open_store(m_path.string())->begin_evaluation(ids.campaign, ids.solution), eval_id);
  EXPECT_EQ(raw_query(m_path, "SELECT COUNT(*) FROM measurement"), "0");
  EXPECT_EQ(raw_query(m_path, "SELECT status FROM evaluation"), "running");
}

TEST_F(store_sqlite, results_hold_done_evaluations_with_names) {
  auto db = open_store(m_path.string());
  const auto ids = seed_campaign(*db);
  const auto other_problem = db->upsert_problem({"kb", "l2.gemm_relu", "h2", "", 2, "{}"});
  const auto other_solution = db->upsert_solution(other_problem, ids.model, {"opus", 0, "s2", "p2", "{}"});
  const auto running_solution = db->upsert_solution(ids.problem, ids.model, {"opus", 1, "s3", "p3", "{}"});

  db->finish_evaluation(db->begin_evaluation(ids.campaign, ids.solution), passed_result(1.5));
  evaluation_result failed;
  failed.result = {verdict::incorrect, "case 2: max abs error 0.3"};
  db->finish_evaluation(db->begin_evaluation(ids.campaign, other_solution), failed);
  db->begin_evaluation(ids.campaign, running_solution);

  const auto rows = db->results(ids.campaign);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].model, "opus");
  EXPECT_EQ(rows[0].problem, "l1.softmax");
  EXPECT_EQ(rows[0].sample, 0);
  EXPECT_EQ(rows[0].v, verdict::passed);
  EXPECT_EQ(rows[0].speedup, 1.5);
  EXPECT_EQ(rows[1].problem, "l2.gemm_relu");
  EXPECT_EQ(rows[1].v, verdict::incorrect);
  EXPECT_FALSE(rows[1].speedup.has_value());
  EXPECT_EQ(db->problem_count(ids.campaign), 2);
}

TEST_F(store_sqlite, timing_methods_count_the_measurements_of_passed_evaluations) {
  auto db = open_store(m_path.string());
  const auto ids = seed_campaign(*db);
  const auto second = db->upsert_solution(ids.problem, ids.model, {"opus", 1, "s2", "p2", "{}"});
  const auto failed_solution = db->upsert_solution(ids.problem, ids.model, {"opus", 2, "s3", "p3", "{}"});
  EXPECT_TRUE(db->timing_methods(ids.campaign).empty());
  db->finish_evaluation(db->begin_evaluation(ids.campaign, ids.solution), passed_result(1.5));
  auto fallback = passed_result(1.2);
  fallback.measurements[0].method = "events"; // a synchronising candidate: plain events
  db->finish_evaluation(db->begin_evaluation(ids.campaign, second), fallback);
  auto failed = passed_result(1.0);
  failed.result = {verdict::incorrect, "case 0"};
  failed.measurements[0].method = "steady_clock"; // not ranked on: not counted
  db->finish_evaluation(db->begin_evaluation(ids.campaign, failed_solution), failed);

  const auto methods = db->timing_methods(ids.campaign);
  ASSERT_EQ(methods.size(), 3u); // most first, then by role and method
  EXPECT_EQ(methods[0].role, "baseline");
  EXPECT_EQ(methods[0].baseline, "eager");
  EXPECT_EQ(methods[0].clock, "cuda_event");
  EXPECT_EQ(methods[0].method, "held_events");
  EXPECT_EQ(methods[0].count, 2);
  EXPECT_EQ(methods[1].role, "candidate");
  EXPECT_EQ(methods[1].method, "events");
  EXPECT_EQ(methods[1].count, 1);
  EXPECT_EQ(methods[2].method, "held_events");
  EXPECT_EQ(methods[2].count, 1);
}

TEST_F(store_sqlite, problem_count_includes_problems_without_solutions) {
  auto db = open_store(m_path.string());
  const auto ids = seed_campaign(*db);
  const auto unsolved = db->upsert_problem({"kb", "l3.attention", "h3", "", 3, "{}"});
  EXPECT_EQ(db->problem_count(ids.campaign), 0);
  db->add_campaign_problems(ids.campaign, {ids.problem, unsolved});
  db->add_campaign_problems(ids.campaign, {ids.problem});
  db->begin_evaluation(ids.campaign, ids.solution);
  EXPECT_EQ(db->problem_count(ids.campaign), 2);
  EXPECT_THROW(db->add_campaign_problems(ids.campaign, {777}), store_error);
}

TEST_F(store_sqlite, problem_evaluations_read_one_problem_with_measurements_and_findings) {
  auto db = open_store(m_path.string());
  const auto ids = seed_campaign(*db);                                                   // l1.softmax, opus sample 0
  const auto newer = db->upsert_problem({"kb", "l1.softmax", "h-changed", "", 1, "{}"}); // same key, new content
  const auto alpha = db->upsert_model("alpha", "org-a");
  const auto alpha_solution = db->upsert_solution(newer, alpha, {"alpha", 0, "sa", "pa", "{}"});
  const auto running_solution = db->upsert_solution(ids.problem, ids.model, {"opus", 1, "s1", "p1", "{}"});
  const auto other_problem = db->upsert_problem({"kb", "l2.gemm_relu", "h2", "", 2, "{}"});
  const auto other_solution = db->upsert_solution(other_problem, ids.model, {"opus", 0, "s2", "p2", "{}"});
  campaign_record weekly;
  weekly.name = "weekly";
  const auto other_campaign = db->open_campaign(weekly).id;

  auto result = passed_result(2.0);
  result.findings = {{"T4", "flag", "probe span above the timer's median", "dynamic"}, {"B1", "info", "calls torch", "static"}};
  result.facts_json = R"({"calls":["torch.softmax"]})";
  const auto opus_eval = db->begin_evaluation(ids.campaign, ids.solution);
  db->finish_evaluation(opus_eval, result);
  db->finish_evaluation(db->begin_evaluation(ids.campaign, alpha_solution), passed_result(1.5));
  const auto running_eval = db->begin_evaluation(ids.campaign, running_solution);
  db->finish_evaluation(db->begin_evaluation(ids.campaign, other_solution), passed_result(3.0));
  db->finish_evaluation(db->begin_evaluation(other_campaign, ids.solution), passed_result(4.0));

  const auto rows = db->problem_evaluations(ids.campaign, "l1.softmax");
  ASSERT_EQ(rows.size(), 3u); // by model, then sample; both contents of the key; not l2, not the other campaign
  EXPECT_EQ(rows[0].row.model, "alpha");
  EXPECT_EQ(rows[0].row.org, "org-a");
  EXPECT_EQ(rows[0].row.speedup, 1.5);
  EXPECT_EQ(rows[1].row.id, opus_eval);
  EXPECT_EQ(rows[1].row.problem, "l1.softmax");
  EXPECT_EQ(rows[1].row.v, verdict::passed);
  ASSERT_EQ(rows[1].measurements.size(), 2u);
  EXPECT_EQ(rows[1].measurements[0].role, "candidate");
  EXPECT_EQ(rows[1].measurements[0].method, "held_events");
  EXPECT_EQ(rows[1].measurements[1].baseline, "eager");
  ASSERT_EQ(rows[1].findings.size(), 2u);
  EXPECT_EQ(rows[1].findings[0].pattern, "T4");
  EXPECT_EQ(rows[1].findings[0].evidence, "probe span above the timer's median");
  EXPECT_EQ(rows[1].findings[0].source, "dynamic");
  EXPECT_EQ(rows[1].findings[1].source, "static");
  EXPECT_EQ(rows[2].row.id, running_eval);
  EXPECT_EQ(rows[2].row.status, "running");
  EXPECT_FALSE(rows[2].row.v.has_value());
  EXPECT_TRUE(rows[2].measurements.empty());
  EXPECT_TRUE(rows[2].findings.empty());
  EXPECT_TRUE(db->problem_evaluations(ids.campaign, "l9.unknown").empty());

  // The single-evaluation read goes through the same row, measurement and finding readers.
  const auto view = db->evaluation(opus_eval);
  ASSERT_TRUE(view.has_value());
  EXPECT_EQ(view->result.measurements.size(), 2u);
  ASSERT_EQ(view->result.findings.size(), 2u);
  EXPECT_EQ(view->result.findings[0].evidence, rows[1].findings[0].evidence);
  EXPECT_EQ(view->result.facts_json, R"({"calls":["torch.softmax"]})");
  EXPECT_EQ(db->evaluation(running_eval)->result.facts_json, "");
  std::size_t listed = 0;
  for (const auto& e : db->evaluation_rows(ids.campaign)) listed += e.problem == "l1.softmax";
  EXPECT_EQ(listed, rows.size());
}

TEST_F(store_sqlite, campaign_problem_is_the_newest_row_of_a_covered_key) {
  auto db = open_store(m_path.string());
  const auto ids = seed_campaign(*db); // l1.softmax: evaluated, not registered
  const auto registered = db->upsert_problem({"kb", "l3.attention", "h3", "attention", 3, "{}"});
  db->upsert_problem({"kb", "l4.unrelated", "h4", "", 1, "{}"});
  db->add_campaign_problems(ids.campaign, {registered});
  db->begin_evaluation(ids.campaign, ids.solution);
  const auto newer = db->upsert_problem({"kb", "l1.softmax", "h-changed", "softmax v2", 1, "{}"});
  db->add_campaign_problems(ids.campaign, {newer});

  const auto problems = db->campaign_problems(ids.campaign);
  ASSERT_EQ(problems.size(), 2u); // by key, one row each
  EXPECT_EQ(problems[0].id, newer);
  EXPECT_EQ(problems[0].record.title, "softmax v2");
  EXPECT_EQ(problems[1].record.key, "l3.attention");
  EXPECT_EQ(db->problem_count(ids.campaign), 2);
  const auto found = db->campaign_problem(ids.campaign, "l1.softmax");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->id, newer);
  EXPECT_EQ(db->campaign_problem(ids.campaign, "l3.attention")->record.level, 3);
  EXPECT_FALSE(db->campaign_problem(ids.campaign, "l4.unrelated").has_value());
  EXPECT_FALSE(db->campaign_problem(ids.campaign + 1, "l1.softmax").has_value());
}

TEST(rerun, command_comes_from_the_campaign_config) {
  campaign_record c;
  c.name = "starter/cpu/abc";
  c.device = "cpu";
  c.config_json = R"({"suite_dir": "/s", "solutions_dir": "/sol", "device": "cuda"})";
  EXPECT_EQ(rerun_command(c, "l1_relu", "opus", "/db/a.db"),
            "arbiter eval /s --solutions /sol --problems l1_relu --models opus --device cuda --db /db/a.db "
            "--campaign starter/cpu/abc-rerun");
  c.config_json = "[1]";
  EXPECT_EQ(rerun_command(c, "l1_relu", "opus", "/db/a.db"), "");
}

TEST_F(store_sqlite, migration_5_keeps_earlier_evaluations_with_no_guard_version) {
  std::int64_t id = 0;
  {
    auto db = open_store(m_path.string());
    const auto ids = seed_campaign(*db);
    id = db->begin_evaluation(ids.campaign, ids.solution);
    db->finish_evaluation(id, passed_result(2.0));
  }
  // The database as migration 4 left it: no guard_version column, no record of migration 5.
  raw_query(m_path, "ALTER TABLE evaluation DROP COLUMN guard_version");
  raw_query(m_path, "DELETE FROM schema_migrations WHERE version = 5");
  auto db = open_store(m_path.string());
  EXPECT_EQ(raw_query(m_path, "SELECT COUNT(*) FROM schema_migrations"), "5");
  const auto view = db->evaluation(id);
  ASSERT_TRUE(view);
  EXPECT_EQ(view->result.guard_version, "");
  EXPECT_EQ(view->result.result.v, verdict::passed);
}

TEST_F(store_sqlite, an_evaluation_keeps_the_guard_version_it_was_judged_under) {
  auto db = open_store(m_path.string());
  const auto ids = seed_campaign(*db);
  const auto id = db->begin_evaluation(ids.campaign, ids.solution);
  auto result = passed_result(2.0);
  result.guard_version = "0123456789abcdef";
  db->finish_evaluation(id, result);
  EXPECT_EQ(db->evaluation(id)->result.guard_version, "0123456789abcdef");
  const auto rows = db->evaluation_rows(ids.campaign);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].guard_version, "0123456789abcdef");
}

TEST_F(store_sqlite, rejudge_replaces_the_judgement_and_keeps_the_run) {
  auto db = open_store(m_path.string());
  const auto ids = seed_campaign(*db);
  const auto id = db->begin_evaluation(ids.campaign, ids.solution);
  auto first = passed_result(2.0);
  first.guard_version = "aaaaaaaaaaaaaaaa";
  first.facts_json = R"({"facts":[]})";
  db->finish_evaluation(id, first);
  const auto before = db->evaluation(id);

  evaluation_result again;
  again.result = {verdict::rejected, "reward hack or rule violation (B1): torch.softmax"};
  again.details_json = R"({"cases":[],"rejudged":true})";
  again.findings.push_back({"B1", "reject", "torch.softmax at kernel.py:3", "static"});
  again.guard_version = "bbbbbbbbbbbbbbbb";
  again.wall_s = 99;             // never stored by a re-judgement
  again.artifacts_dir = "other"; // neither
  db->rejudge_evaluation(id, again);

  const auto after = db->evaluation(id);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->result.result.v, verdict::rejected);
  EXPECT_EQ(after->result.result.reason, again.result.reason);
  EXPECT_FALSE(after->result.speedup);
  EXPECT_EQ(after->result.guard_version, "bbbbbbbbbbbbbbbb");
  EXPECT_EQ(after->result.details_json, again.details_json);
  EXPECT_TRUE(after->result.measurements.empty());
  ASSERT_EQ(after->result.findings.size(), 1u);
  EXPECT_EQ(after->result.findings[0].pattern, "B1");
  EXPECT_EQ(after->result.findings[0].source, "static");
  EXPECT_EQ(after->result.wall_s, before->result.wall_s);
  EXPECT_EQ(after->result.artifacts_dir, before->result.artifacts_dir);
  EXPECT_EQ(after->finished_at, before->finished_at);
  EXPECT_EQ(after->result.facts_json, first.facts_json);
}

TEST_F(store_sqlite, rejudge_refuses_an_evaluation_that_is_not_finished) {
  auto db = open_store(m_path.string());
  const auto ids = seed_campaign(*db);
  const auto id = db->begin_evaluation(ids.campaign, ids.solution);
  EXPECT_THROW(db->rejudge_evaluation(id, passed_result(1.0)), store_error);
  EXPECT_THROW(db->rejudge_evaluation(id + 100, passed_result(1.0)), store_error);
}
