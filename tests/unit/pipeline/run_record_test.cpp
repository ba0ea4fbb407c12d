// run.json: a finished run written into its evaluation folder and read back as the judge takes it.
#include "arbiter/common/error.hpp"
#include "detail/run_record.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
namespace catalog = arbiter::catalog;
namespace sandbox = arbiter::sandbox;
using namespace arbiter::pipeline;
using arbiter::config_error;
using arbiter::io_error;

namespace {

class run_record_fixture : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_dir = fs::temp_directory_path() / ("arbiter_run_record_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    m_options.num_seeds = 4;
  }
  void TearDown() override { fs::remove_all(m_dir); }

  detail::candidate_run finished_run() const {
    detail::candidate_run run;
    run.process.end = sandbox::process_end::signaled;
    run.process.exit_code = -1;
    run.process.signal = 9;
    run.process.wall_s = 12.5;
    run.process.output_bytes = 1ull << 33; // past 32 bits
    run.process.truncated = true;
    run.process.channel_bytes = 4096;
    run.process.channel_truncated = true;
    run.process.error = "";
    run.process.timeout_s = 900;
    run.process.gated_s = 0.25;
    run.process.isolation_applied = false;
    run.process.isolation_note = "user namespaces refused";
    run.process.isolation_engine = "bubblewrap";
    run.process.isolation_layers = {"allow-list root", "pid namespace"};
    run.process.isolation_missing = "seccomp: libseccomp not found";
    run.process.limit_exceeded = "work folder over 1 GiB";
    run.process.survivors = {"python3 -m arbiter_runner candidate job.json"};
    run.facts = {{"version", 1},
                 {"languages", {"torch"}},
                 {"facts", {{{"kind", "call"}, {"what", "torch.softmax"}, {"where", "kernel.py:7"}, {"function", "forward"}}}}};
    run.sandbox = {{"requested", true}, {"applied", false}, {"uid", 65534}};
    run.probe = "enabled";
    run.probe_key = "00ff00ff";
    return run;
  }

  detail::job_context context() const {
    return {m_options, m_paths, "cuda", {catalog::shape{"small", {}, {}}, catalog::shape{"large", {"cuda"}, {}}}};
  }

  void write_text(const std::string& text) const { std::ofstream(m_dir / detail::k_run_record_file) << text; }

  std::string read_error() const {
    try {
      detail::read_run_record(m_dir);
    } catch (const config_error& e) {
      return e.what();
    }
    return "";
  }

  fs::path m_dir;
  eval_options m_options;
  runner_paths m_paths;
};

} // namespace

TEST_F(run_record_fixture, a_run_reads_back_as_it_was_written) {
  const auto run = finished_run();
  detail::write_run_record(m_dir, detail::make_run_record(context(), run, "/data/reference/p-abc"));
  const detail::run_record back = detail::read_run_record(m_dir);
  const auto& p = back.run.process;
  EXPECT_EQ(p.end, sandbox::process_end::signaled);
  EXPECT_EQ(p.exit_code, -1);
  EXPECT_EQ(p.signal, 9);
  EXPECT_DOUBLE_EQ(p.wall_s, 12.5);
  EXPECT_EQ(p.output_bytes, 1ull << 33);
  EXPECT_TRUE(p.truncated);
  EXPECT_EQ(p.channel_bytes, 4096u);
  EXPECT_TRUE(p.channel_truncated);
  EXPECT_DOUBLE_EQ(p.timeout_s, 900);
  EXPECT_DOUBLE_EQ(p.gated_s, 0.25);
  EXPECT_FALSE(p.isolation_applied);
  EXPECT_EQ(p.isolation_note, "user namespaces refused");
  EXPECT_EQ(p.isolation_engine, "bubblewrap");
  EXPECT_EQ(p.isolation_layers, (std::vector<std::string>{"allow-list root", "pid namespace"}));
  EXPECT_EQ(p.isolation_missing, "seccomp: libseccomp not found");
  EXPECT_EQ(p.limit_exceeded, "work folder over 1 GiB");
  EXPECT_EQ(p.survivors, (std::vector<std::string>{"python3 -m arbiter_runner candidate job.json"}));
  EXPECT_EQ(back.run.facts, run.facts);
  EXPECT_EQ(back.run.sandbox, run.sandbox);
  EXPECT_EQ(back.run.probe, "enabled");
  EXPECT_EQ(back.run.probe_key, "00ff00ff");
  EXPECT_EQ(back.reference_dir, fs::path("/data/reference/p-abc"));
  EXPECT_EQ(back.device, "cuda");
  EXPECT_EQ(back.shapes, (std::vector<std::string>{"small", "large"}));
  EXPECT_EQ(back.num_seeds, 4);
}

TEST_F(run_record_fixture, every_process_end_reads_back) {
  for (const auto end : {sandbox::process_end::exited, sandbox::process_end::signaled, sandbox::process_end::timed_out,
                         sandbox::process_end::failed_to_start}) {
    auto run = finished_run();
    run.process.end = end;
    run.process.error = end == sandbox::process_end::failed_to_start ? "no such interpreter" : "";
    detail::write_run_record(m_dir, detail::make_run_record(context(), run, "/r"));
    const auto back = detail::read_run_record(m_dir);
    EXPECT_EQ(back.run.process.end, end);
    EXPECT_EQ(back.run.process.error, run.process.error);
  }
}

TEST_F(run_record_fixture, a_record_from_before_survivors_were_looked_for_reads_as_none) {
  detail::write_run_record(m_dir, detail::make_run_record(context(), finished_run(), "/r"));
  const fs::path file = m_dir / detail::k_run_record_file;
  std::ifstream in(file);
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["process"].erase("survivors");
  write_text(doc.dump());
  EXPECT_TRUE(detail::read_run_record(m_dir).run.process.survivors.empty());
}

TEST_F(run_record_fixture, a_missing_file_is_an_io_error) { EXPECT_THROW(detail::read_run_record(m_dir), io_error); }

TEST_F(run_record_fixture, bad_input_names_the_file_and_the_key) {
  detail::write_run_record(m_dir, detail::make_run_record(context(), finished_run(), "/r"));
  const fs::path file = m_dir / detail::k_run_record_file;
  std::ifstream in(file);
  nlohmann::json doc = nlohmann::json::parse(in);

  auto without = doc;
  without["process"].erase("exit_code");
  write_text(without.dump());
  std::string error = read_error();
  EXPECT_NE(error.find(file.string()), std::string::npos) << error;
  EXPECT_NE(error.find("'process.exit_code': missing"), std::string::npos) << error;

  auto wrong_type = doc;
  wrong_type["probe"]["key"] = 7;
  write_text(wrong_type.dump());
  EXPECT_NE(read_error().find("'probe.key'"), std::string::npos) << read_error();

  auto unknown_end = doc;
  unknown_end["process"]["end"] = "vanished";
  write_text(unknown_end.dump());
  EXPECT_NE(read_error().find("'process.end': unknown process end 'vanished'"), std::string::npos) << read_error();

  auto newer = doc;
  newer["version"] = detail::k_run_record_version + 1;
  write_text(newer.dump());
  EXPECT_NE(read_error().find("'version'"), std::string::npos) << read_error();

  write_text("{not json");
  EXPECT_NE(read_error().find("not a JSON object"), std::string::npos) << read_error();
}
