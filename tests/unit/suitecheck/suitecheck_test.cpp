// suite check without processes: job contents, the memory budget's precedence, reading the
// runner's events (complete, partial, failed), and the table.
#include "arbiter/suitecheck/suite_check.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <sstream>
#include "../python_list.hpp"
#include "arbiter/common/frames.hpp"

namespace {
/// The runner's events as it writes them: each JSON line of a fixture as a frame.
struct framed_events : std::istringstream {
  explicit framed_events(std::string_view json_lines) : std::istringstream(arbiter::frames_from_lines(json_lines)) {}
};
} // namespace

using namespace arbiter;

namespace {

catalog::problem two_shape_problem() {
  catalog::problem p;
  p.id = "l1_demo";
  p.level = 1;
  p.reference_file = "/suite/l1_demo/reference.py";
  p.tol = {1e-6, 1e-3, catalog::tolerance_mode::allclose};
  p.shapes = {{"small", {}, {{"rows", 7}}}, {"big", {"cuda"}, {{"rows", 4096}}}, {"mid", {"cpu"}, {{"rows", 64}}}};
  return p;
}

sandbox::process_result exited(int code) {
  sandbox::process_result r;
  r.end = sandbox::process_end::exited;
  r.exit_code = code;
  return r;
}

} // namespace

TEST(SuiteCheck, JobCarriesTheDeviceShapesToleranceAndSeeds) {
  const auto p = two_shape_problem();
  suitecheck::options opts;
  const auto job = suitecheck::make_job(p, "cpu", opts, 12.5, "/w/events.jsonl", "/lib/rt.so");
  EXPECT_EQ(job["mode"], "check");
  ASSERT_EQ(job["shapes"].size(), 2u); // "big" is cuda-only
  EXPECT_EQ(job["shapes"][0]["name"], "small");
  EXPECT_EQ(job["shapes"][1]["params"]["rows"], 64);
  EXPECT_DOUBLE_EQ(job["tolerance"]["atol"].get<double>(), 1e-6);
  EXPECT_EQ(job["tolerance"]["mode"], "allclose");
  EXPECT_EQ(job["seeds"].size(), 2u);
  EXPECT_DOUBLE_EQ(job["memory_gb"].get<double>(), 12.5);
  EXPECT_EQ(job["runtime_lib"], "/lib/rt.so");
}

TEST(SuiteCheck, JobNamesTheBaselinesToTime) {
  auto p = two_shape_problem();
  auto job = suitecheck::make_job(p, "cpu", suitecheck::options{}, 40, "e", "r");
  EXPECT_EQ(job["baselines"]["compile"], false);
  EXPECT_TRUE(job["baselines"]["sota"].is_null());
  p.compile_baseline = true;
  p.sota_file = "/suite/l1_demo/sota.py";
  job = suitecheck::make_job(p, "cpu", suitecheck::options{}, 40, "e", "r");
  EXPECT_EQ(job["baselines"]["compile"], true);
  EXPECT_EQ(job["baselines"]["sota"], "/suite/l1_demo/sota.py");
  suitecheck::options eager_only; // --baselines none
  eager_only.time_compile = false;
  eager_only.time_sota = false;
  job = suitecheck::make_job(p, "cpu", eager_only, 40, "e", "r");
  EXPECT_EQ(job["baselines"]["compile"], false);
  EXPECT_TRUE(job["baselines"]["sota"].is_null());
}

TEST(SuiteCheck, BitwiseProblemsSendZeroTolerance) {
  auto p = two_shape_problem();
  p.tol = {1.0, 1.0, catalog::tolerance_mode::bitwise};
  const auto job = suitecheck::make_job(p, "cuda", suitecheck::options{}, 40, "e", "r");
  EXPECT_EQ(job["tolerance"]["mode"], "bitwise");
  EXPECT_EQ(job["tolerance"]["atol"].get<double>(), 0.0);
  EXPECT_EQ(job["shapes"].size(), 2u);
}

TEST(SuiteCheck, MemoryBudgetProblemThenSuiteThenDefault) {
  auto p = two_shape_problem();
  EXPECT_DOUBLE_EQ(suitecheck::memory_budget(p, nlohmann::json::object()), suitecheck::k_default_memory_gb);
  const nlohmann::json suite = {{"check", {{"memory_gb", 24}}}};
  EXPECT_DOUBLE_EQ(suitecheck::memory_budget(p, suite), 24.0);
  p.spec = {{"memory_gb", 80}};
  EXPECT_DOUBLE_EQ(suitecheck::memory_budget(p, suite), 80.0);
}

TEST(SuiteCheck, ReadsEveryShapeResult) {
  const auto p = two_shape_problem();
  framed_events events(
      R"({"event":"start","mode":"check"})"
      "\n"
      R"({"event":"shape_check","shape_idx":0,"name":"small","ok":true,"failures":[],"notes":["memory not measured on cpu"],"ref_ms":0.25,"peak_gb":null})"
      "\n"
      R"({"event":"shape_check","shape_idx":1,"name":"mid","ok":false,"failures":["seed-independent: two input seeds gave identical outputs"],"notes":[],"ref_ms":1.5,"peak_gb":null})"
      "\n"
      R"({"event":"done"})"
      "\n");
  const auto r = suitecheck::read_events(p, "cpu", events, exited(0));
  ASSERT_EQ(r.shapes.size(), 2u);
  EXPECT_TRUE(r.shapes[0].ok);
  EXPECT_DOUBLE_EQ(*r.shapes[0].ref_ms, 0.25);
  EXPECT_FALSE(r.shapes[0].peak_gb.has_value());
  EXPECT_FALSE(r.shapes[1].ok);
  EXPECT_NE(r.shapes[1].failures[0].find("seed-independent"), std::string::npos);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.error.empty());
}

TEST(SuiteCheck, AProcessThatDiesLeavesNamedFailures) {
  const auto p = two_shape_problem();
  framed_events events(R"({"event":"shape_check","shape_idx":0,"name":"small","ok":true,"failures":[],"notes":[],"ref_ms":0.1})"
                       "\n"
                       R"({"event":"shape_ch)"); // cut short by the kill
  sandbox::process_result killed;
  killed.end = sandbox::process_end::signaled;
  killed.signal = 9;
  const auto r = suitecheck::read_events(p, "cpu", events, killed);
  ASSERT_EQ(r.shapes.size(), 2u);
  EXPECT_TRUE(r.shapes[0].ok);
  EXPECT_FALSE(r.shapes[1].ok);
  EXPECT_NE(r.shapes[1].failures[0].find("not checked"), std::string::npos);
  EXPECT_FALSE(r.error.empty());
  EXPECT_FALSE(r.ok());
}

TEST(SuiteCheck, ALoadErrorIsTheProblemsError) {
  const auto p = two_shape_problem();
  framed_events events(R"({"event":"error","phase":"load","type":"SyntaxError","message":"invalid syntax"})"
                       "\n");
  const auto r = suitecheck::read_events(p, "cpu", events, exited(1));
  EXPECT_NE(r.error.find("SyntaxError"), std::string::npos);
  EXPECT_EQ(r.shapes.size(), 2u);
  EXPECT_FALSE(r.ok());
}

TEST(SuiteCheck, TableNamesEachFailureAndSummarises) {
  suitecheck::report rep;
  rep.suite = "demo";
  rep.device = "cpu";
  suitecheck::problem_result good{"l1_good", 1, 40, "", {{"s", true, {}, {}, 0.5, std::nullopt, {}}}, {}};
  suitecheck::problem_result bad{
      "l1_bad", 1, 40, "", {{"s", false, {"degenerate: an all-zeros answer passes the tolerance"}, {}, 0.1, std::nullopt, {}}},
      {}};
  rep.problems = {good, bad};
  const std::string table = suitecheck::render_table(rep);
  EXPECT_NE(table.find("l1_good"), std::string::npos);
  EXPECT_NE(table.find("FAIL: degenerate"), std::string::npos);
  EXPECT_NE(table.find("1 problems failed"), std::string::npos);
  EXPECT_FALSE(rep.ok());
  const auto json = suitecheck::to_json(rep);
  EXPECT_EQ(json["problems"][1]["ok"], false);
  EXPECT_EQ(json["problems"][0]["shapes"][0]["ref_ms"], 0.5);
}

TEST(SuiteCheck, TableAndJsonCarryTheBaselines) {
  const auto p = two_shape_problem();
  framed_events events(
      R"({"event":"shape_check","shape_idx":0,"name":"small","ok":true,"failures":[],"notes":[],"ref_ms":0.5,)"
      R"("baselines":{"eager":{"median_ms":0.5},"compile":{"unavailable":"torch 1.13.0 has no torch.compile"},"sota":{"median_ms":0.25}}})"
      "\n"
      R"({"event":"shape_check","shape_idx":1,"name":"mid","ok":false,"failures":["sota.py: output outside tolerance on seed 7: output 0: max abs difference 1"],"notes":[],"ref_ms":1.5,)"
      R"("baselines":{"eager":{"median_ms":1.5},"compile":null,"sota":{"unavailable":"sota.py: output outside tolerance"}}})"
      "\n");
  suitecheck::report rep;
  rep.suite = "demo";
  rep.device = "cpu";
  rep.problems = {suitecheck::read_events(p, "cpu", events, exited(0))};
  const std::string table = suitecheck::render_table(rep);
  EXPECT_NE(table.find("compile ms"), std::string::npos) << table;
  EXPECT_NE(table.find("sota ms"), std::string::npos) << table;
  EXPECT_NE(table.find("0.2500"), std::string::npos) << table;
  EXPECT_NE(table.find("—"), std::string::npos) << table;
  EXPECT_NE(table.find("FAIL: sota.py: output outside tolerance"), std::string::npos) << table;
  EXPECT_NE(table.find("unavailable on 1 shapes: compile: torch 1.13.0 has no torch.compile"), std::string::npos) << table;
  const auto json = suitecheck::to_json(rep);
  const auto& shapes = json["problems"][0]["shapes"];
  EXPECT_EQ(shapes[0]["baselines"]["sota"]["median_ms"], 0.25);
  EXPECT_EQ(shapes[0]["baselines"]["eager"]["median_ms"], 0.5);
  EXPECT_EQ(shapes[0]["ref_ms"], 0.5);
  EXPECT_TRUE(shapes[1]["baselines"]["compile"].is_null());
}

namespace {

// Records each process it is asked to run and runs none.
struct recording_runner : sandbox::process_runner {
  std::vector<sandbox::process_spec> specs;
  sandbox::process_result run(const sandbox::process_spec& spec) override {
    specs.push_back(spec);
    return exited(1);
  }
};

} // namespace

TEST(SuiteCheck, ARelativeWorkFolderReachesTheProcessAsAnAbsolutePath) {
  const auto before = std::filesystem::current_path();
  const auto scratch = std::filesystem::temp_directory_path() / ("arbiter_suitecheck_cwd_" + std::to_string(::getpid()));
  std::filesystem::create_directories(scratch);
  std::filesystem::current_path(scratch);
  suitecheck::options opts;
  opts.suite_dir = std::filesystem::path(ARBITER_SOURCE_DIR) / "suites" / "core";
  opts.device = "cpu";
  opts.python = "/bin/false";
  opts.seeds = {1, 2};
  opts.only = {"l1_gelu_bf16"};
  opts.work_dir = "relative-work";
  recording_runner runner;
  const auto rep = suitecheck::run(opts, runner);
  std::filesystem::current_path(before);
  ASSERT_EQ(runner.specs.size(), 1u);
  const auto& spec = runner.specs[0];
  EXPECT_EQ(spec.cwd, (scratch / "relative-work" / "l1_gelu_bf16").string());
  EXPECT_EQ(spec.argv.back(), (scratch / "relative-work" / "l1_gelu_bf16" / "job.json").string());
  EXPECT_TRUE(std::filesystem::exists(spec.argv.back()));
  ASSERT_EQ(rep.problems.size(), 1u);
  std::filesystem::remove_all(scratch);
}

// The runner refuses a key outside its mode's list (python/arbiter_runner/job.py, CHECK_JOB).
TEST(SuiteCheck, JobHasTheKeysOfTheRunnersListForChecks) {
  const auto p = two_shape_problem();
  std::set<std::string> written;
  const auto job = suitecheck::make_job(p, "cpu", suitecheck::options{}, 40, "e", "r");
  for (const auto& [key, value] : job.items()) written.insert(key);
  const auto runner =
      python_tuple(std::filesystem::path(ARBITER_SOURCE_DIR) / "python" / "arbiter_runner" / "job.py", "CHECK_JOB");
  ASSERT_FALSE(runner.empty());
  EXPECT_EQ(written, runner);
}
