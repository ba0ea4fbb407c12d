#include "arbiter/catalog/solution.hpp"
#include "arbiter/catalog/suite.hpp"
#include "arbiter/common/error.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace arbiter::catalog;

namespace {

const char* k_reference = "import torch\nclass Model(torch.nn.Module):\n  pass\n"
                          "def get_inputs():\n  return []\ndef get_init_inputs():\n  return []\n";

class catalog_fixture : public ::testing::Test {
 protected:
  void SetUp() override {
    m_root = fs::temp_directory_path() / ("arbiter_catalog_" + std::to_string(::getpid()));
    fs::remove_all(m_root);
    fs::create_directories(m_root);
  }
  void TearDown() override { fs::remove_all(m_root); }
  void write(const fs::path& rel, const std::string& text) {
    fs::create_directories((m_root / rel).parent_path());
    std::ofstream(m_root / rel) << text;
  }
  std::string load_error(const fs::path& dir) {
    try {
      load_suite(dir);
    } catch (const arbiter::config_error& e) {
      return e.what();
    }
    return "";
  }
  fs::path m_root;
};

} // namespace

TEST_F(catalog_fixture, loads_problem_toml_with_shapes_and_suite_defaults) {
  write("s/suite.toml", "name = \"demo\"\n[tolerance]\natol = 0.5\n[rules]\nlibraries = true\n");
  write("s/p1/reference.py", k_reference);
  write("s/p1/problem.toml",
        "id = \"l1.p\"\nlevel = 2\ndtype = \"float32\"\n"
        "[[shapes]]\nname = \"small\"\nrows = 4\ndevices = [\"cpu\"]\n"
        "[[shapes]]\nname = \"big\"\nrows = 4096\n[rules]\nforbid = [\"torch.softmax\"]\n");
  const suite s = load_suite(m_root / "s");
  EXPECT_EQ(s.name, "demo");
  ASSERT_EQ(s.problems.size(), 1u);
  const problem& p = s.problems[0];
  EXPECT_EQ(p.id, "l1.p");
  EXPECT_EQ(p.level, 2);
  EXPECT_DOUBLE_EQ(p.tol.atol, 0.5);  // suite default
  EXPECT_DOUBLE_EQ(p.tol.rtol, 1e-3); // dtype default
  EXPECT_TRUE(p.rule.libraries);
  ASSERT_EQ(p.rule.forbid.size(), 1u);
  ASSERT_EQ(p.shapes.size(), 2u);
  EXPECT_EQ(p.shapes[0].params["rows"], 4);
  EXPECT_FALSE(p.shapes[0].params.contains("name"));
  EXPECT_EQ(p.shapes_for("cuda").size(), 1u);
  EXPECT_EQ(p.shapes_for("cpu").size(), 2u);
  EXPECT_EQ(p.hash.size(), 64u);
}

TEST_F(catalog_fixture, bare_kernelbench_folder_is_a_suite) {
  write("level1/1_Square_matmul.py", k_reference);
  write("level1/2_relu.py", k_reference);
  const suite s = load_suite(m_root / "level1");
  ASSERT_EQ(s.problems.size(), 2u);
  EXPECT_EQ(s.problems[0].id, "1_Square_matmul");
  EXPECT_EQ(s.problems[0].shapes.size(), 1u);
  EXPECT_DOUBLE_EQ(s.problems[0].tol.atol, 1e-3);
}

TEST_F(catalog_fixture, errors_name_file_key_and_expectation) {
  write("s/p/reference.py", k_reference);
  write("s/p/problem.toml", "level = \"two\"\n");
  const std::string message = load_error(m_root / "s");
  EXPECT_NE(message.find("problem.toml"), std::string::npos) << message;
  EXPECT_NE(message.find("'level'"), std::string::npos) << message;
  EXPECT_NE(message.find("expected an integer"), std::string::npos) << message;
}

TEST_F(catalog_fixture, rejects_bad_device_duplicate_shape_and_syntax) {
  write("a/p/reference.py", k_reference);
  write("a/p/problem.toml", "[[shapes]]\ndevices = [\"tpu\"]\n");
  EXPECT_NE(load_error(m_root / "a").find("shapes[0].devices"), std::string::npos);
  write("b/p/reference.py", k_reference);
  write("b/p/problem.toml", "[[shapes]]\nname = \"x\"\n[[shapes]]\nname = \"x\"\n");
  EXPECT_NE(load_error(m_root / "b").find("appears twice"), std::string::npos);
  write("c/p/reference.py", k_reference);
  write("c/p/problem.toml", "level = \n");
  EXPECT_NE(load_error(m_root / "c").find("problem.toml:1:"), std::string::npos);
}

TEST_F(catalog_fixture, reference_without_model_is_refused) {
  write("s/p/reference.py", "def get_inputs():\n  return []\n");
  EXPECT_NE(load_error(m_root / "s").find("class Model"), std::string::npos);
}

TEST_F(catalog_fixture, solutions_with_samples_meta_and_ignored_folders) {
  write("s/p/reference.py", k_reference);
  write("sol/p/m1/kernel.py", "class ModelNew: pass\n");
  write("sol/p/m1/meta.json", "{\"org\": \"x\", \"devices\": [\"cuda\"]}");
  write("sol/p/m1/1/kernel.py", "class ModelNew: pass # second sample\n");
  write("sol/p/m2/kernel.py", "class ModelNew: pass\n");
  write("sol/unknown/m1/kernel.py", "x");
  const suite s = load_suite(m_root / "s");
  std::vector<std::string> ignored;
  const auto all = load_solutions(m_root / "sol", s, {}, &ignored);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].label(), "p/m1");
  EXPECT_EQ(all[1].label(), "p/m1#1");
  EXPECT_FALSE(all[0].runs_on("cpu"));
  EXPECT_TRUE(all[2].runs_on("cpu"));
  EXPECT_EQ(all[0].files.size(), 1u); // meta.json and the numbered sample are not part of sample 0
  EXPECT_NE(all[0].hash, all[1].hash);
  ASSERT_EQ(ignored.size(), 1u);
  EXPECT_NE(ignored[0].find("no problem 'unknown'"), std::string::npos);
  const auto only_m2 = load_solutions(m_root / "sol", s, {{"m2"}, {}}, nullptr);
  ASSERT_EQ(only_m2.size(), 1u);
  EXPECT_EQ(only_m2[0].model, "m2");
}

TEST_F(catalog_fixture, bad_meta_json_names_the_file) {
  write("s/p/reference.py", k_reference);
  write("sol/p/m/kernel.py", "x");
  write("sol/p/m/meta.json", "{not json");
  const suite s = load_suite(m_root / "s");
  try {
    load_solutions(m_root / "sol", s, {}, nullptr);
    FAIL();
  } catch (const arbiter::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("meta.json"), std::string::npos);
  }
}

TEST_F(catalog_fixture, integer_outputs_are_bitwise_unless_the_problem_gives_bounds) {
  write("s/plain/reference.py", k_reference);
  write("s/plain/problem.toml", "dtype = \"int8\"\n");
  write("s/step/reference.py", k_reference);
  write("s/step/problem.toml", "dtype = \"int8\"\n[tolerance]\natol = 1.0\nrtol = 0.0\n");
  write("s/strict/reference.py", k_reference);
  write("s/strict/problem.toml", "dtype = \"uint8\"\n[tolerance]\natol = 1.0\nmode = \"bitwise\"\n");
  const suite s = load_suite(m_root / "s");
  ASSERT_EQ(s.problems.size(), 3u);
  EXPECT_EQ(s.find("plain")->tol.mode, tolerance_mode::bitwise);
  const problem& step = *s.find("step");
  EXPECT_EQ(step.tol.mode, tolerance_mode::allclose); // one code step accepted, as the file says
  EXPECT_DOUBLE_EQ(step.tol.atol, 1.0);
  EXPECT_DOUBLE_EQ(step.tol.rtol, 0.0);
  EXPECT_EQ(s.find("strict")->tol.mode, tolerance_mode::bitwise);
}

TEST_F(catalog_fixture, a_mismatch_share_is_read_and_bounded) {
  write("s/q/reference.py", k_reference);
  write("s/q/problem.toml", "dtype = \"int8\"\n[tolerance]\natol = 1.0\nmismatch_fraction = 1e-6\n");
  EXPECT_DOUBLE_EQ(load_suite(m_root / "s").find("q")->tol.mismatch_fraction, 1e-6);
  write("t/q/reference.py", k_reference);
  write("t/q/problem.toml", "[tolerance]\nmismatch_fraction = 0.01\n");
  const std::string message = load_error(m_root / "t");
  EXPECT_NE(message.find("problem.toml"), std::string::npos) << message;
  EXPECT_NE(message.find("tolerance.mismatch_fraction"), std::string::npos) << message;
}

TEST_F(catalog_fixture, the_suites_tolerance_is_read_by_the_same_rules_as_a_problems) {
  write("s/q/reference.py", k_reference);
  write("s/suite.toml", "name = \"demo\"\n[tolerance]\natol = 0.1\nmismatch_fraction = 1e-6\n");
  EXPECT_DOUBLE_EQ(load_suite(m_root / "s").find("q")->tol.mismatch_fraction, 1e-6); // was dropped at suite level
  write("t/q/reference.py", k_reference);
  write("t/suite.toml", "name = \"demo\"\n[tolerance]\natol = -1.0\n");
  const std::string message = load_error(m_root / "t");
  EXPECT_NE(message.find("suite.toml"), std::string::npos) << message;
  EXPECT_NE(message.find("tolerance.atol"), std::string::npos) << message;
}

TEST_F(catalog_fixture, baselines_resolve_the_sota_file_in_the_problem_folder) {
  write("s/p/reference.py", k_reference);
  write("s/p/sota.py", "class ModelSota: pass\n");
  write("s/p/problem.toml", "[baselines]\ncompile = true\nsota = \"sota.py\"\n");
  const suite with = load_suite(m_root / "s");
  const problem& p = with.problems.at(0);
  EXPECT_TRUE(p.compile_baseline);
  EXPECT_EQ(p.sota_file, fs::canonical(m_root / "s" / "p" / "sota.py"));
  write("t/p/reference.py", k_reference);
  const suite without = load_suite(m_root / "t");
  const problem& bare = without.problems.at(0);
  EXPECT_FALSE(bare.compile_baseline);
  EXPECT_TRUE(bare.sota_file.empty());
}

TEST_F(catalog_fixture, missing_sota_file_names_problem_toml_and_key) {
  write("s/p/reference.py", k_reference);
  write("s/p/problem.toml", "[baselines]\nsota = \"sota.py\"\n");
  const std::string message = load_error(m_root / "s");
  EXPECT_NE(message.find("problem.toml"), std::string::npos) << message;
  EXPECT_NE(message.find("'baselines.sota'"), std::string::npos) << message;
  EXPECT_NE(message.find("sota.py"), std::string::npos) << message;
}
