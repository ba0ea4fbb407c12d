// Real processes through /bin/sh: exit codes, signals, timeouts, group kill, log capping,
// environment, working directory, rlimits, the channel on descriptor 3, the gate on descriptor 4.
#include "arbiter/common/error.hpp"
#include "arbiter/sandbox/process.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using namespace arbiter::sandbox;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

/// True once `pid` is gone or a zombie: killed processes linger as zombies until init reaps them.
bool process_dead(pid_t pid) {
  for (int attempt_idx = 0; attempt_idx < 100; ++attempt_idx) {
    std::string const stat = read_file("/proc/" + std::to_string(pid) + "/stat");
    auto const close_paren = stat.rfind(')');
    if (stat.empty() || close_paren == std::string::npos) return true;
    if (stat.size() > close_paren + 2 && stat[close_paren + 2] == 'Z') return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

class process_test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "arbiter-sandbox-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_dir = fs::canonical(pattern);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  process_spec shell(const std::string& script) const {
    process_spec spec;
    spec.argv = {"/bin/sh", "-c", script};
    spec.env = {{"PATH", "/usr/bin:/bin"}};
    spec.log_path = (m_dir / "log").string();
    spec.timeout_s = 30;
    return spec;
  }
  std::string log() const { return read_file(m_dir / "log"); }

  fs::path m_dir;
  posix_process_runner m_runner;
};

} // namespace

TEST_F(process_test, reports_exit_status) {
  auto const result = m_runner.run(shell("exit 3"));
  EXPECT_EQ(result.end, process_end::exited);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(describe(result), "exited with status 3");
}

TEST_F(process_test, reports_signal) {
  auto const result = m_runner.run(shell("kill -SEGV $$"));
  EXPECT_EQ(result.end, process_end::signaled);
  EXPECT_EQ(result.signal, SIGSEGV);
  EXPECT_EQ(describe(result), "killed by SIGSEGV (signal 11)");
}

TEST_F(process_test, times_out_on_wall_clock) {
  auto spec = shell("sleep 100");
  spec.timeout_s = 0.5;
  auto const result = m_runner.run(spec);
  EXPECT_EQ(result.end, process_end::timed_out);
  EXPECT_LT(result.wall_s, 10.0);
  EXPECT_GE(result.wall_s, 0.5);
  EXPECT_EQ(describe(result), "timed out after 0.5 s (wall clock)");
}

TEST_F(process_test, kills_a_group_that_ignores_sigterm) {
  auto spec = shell("trap '' TERM; sleep 100; echo survived");
  spec.timeout_s = 0.3;
  spec.kill_grace_s = 0.5;
  auto const result = m_runner.run(spec);
  EXPECT_EQ(result.end, process_end::timed_out);
  EXPECT_GE(result.wall_s, 0.8); // the grace period was given before SIGKILL
  EXPECT_LT(result.wall_s, 10.0);
  EXPECT_EQ(log().find("survived"), std::string::npos);
}

TEST_F(process_test, kills_background_children_holding_the_pipe) {
  auto const pid_file = m_dir / "pid";
  auto const result = m_runner.run(shell("sleep 100 & echo $! > " + pid_file.string() + "; exit 0"));
  EXPECT_EQ(result.end, process_end::exited);
  EXPECT_LT(result.wall_s, 10.0);
  pid_t const grandchild = std::stoi(read_file(pid_file));
  EXPECT_TRUE(process_dead(grandchild));
}

TEST_F(process_test, kills_background_children_detached_from_the_pipe) {
  auto const pid_file = m_dir / "pid";
  auto const result = m_runner.run(shell("sleep 100 >/dev/null 2>&1 & echo $! > " + pid_file.string() + "; exit 0"));
  EXPECT_EQ(result.end, process_end::exited);
  pid_t const grandchild = std::stoi(read_file(pid_file));
  EXPECT_TRUE(process_dead(grandchild));
}

TEST_F(process_test, captures_stdout_and_stderr_together) {
  auto const result = m_runner.run(shell("printf hello; printf world >&2"));
  EXPECT_EQ(result.end, process_end::exited);
  EXPECT_EQ(log(), "helloworld");
  EXPECT_EQ(result.output_bytes, 10u);
  EXPECT_FALSE(result.truncated);
}

TEST_F(process_test, truncates_a_flood_to_head_and_tail) {
  auto spec = shell("yes abcdefghi | head -c 5000000");
  spec.log_head_bytes = 1000;
  spec.log_tail_bytes = 2005; // not a multiple of the line length: the tail starts mid-line
  auto const result = m_runner.run(spec);
  ASSERT_EQ(result.end, process_end::exited);
  EXPECT_EQ(result.output_bytes, 5000000u);
  EXPECT_TRUE(result.truncated);
  std::string full;
  for (int line_idx = 0; line_idx < 500000; ++line_idx) full += "abcdefghi\n";
  std::string const expected = full.substr(0, 1000) + "\n[... 4996995 bytes elided ...]\n" + full.substr(full.size() - 2005);
  EXPECT_EQ(log(), expected);
}

TEST_F(process_test, keeps_everything_that_fits_head_plus_tail) {
  auto spec = shell("printf 0123456789abcdefghij");
  spec.log_head_bytes = 8;
  spec.log_tail_bytes = 12;
  auto const result = m_runner.run(spec);
  EXPECT_FALSE(result.truncated);
  EXPECT_EQ(log(), "0123456789abcdefghij");
}

TEST_F(process_test, environment_is_exactly_the_spec) {
  process_spec spec = shell("");
  spec.argv = {"env"}; // found through spec.env's PATH
  spec.env = {{"PATH", "/usr/bin:/bin"}, {"ARBITER_X", "two words"}};
  ::setenv("ARBITER_SANDBOX_LEAK", "1", 1);
  auto const result = m_runner.run(spec);
  ::unsetenv("ARBITER_SANDBOX_LEAK");
  ASSERT_EQ(result.end, process_end::exited) << describe(result);
  EXPECT_EQ(log(), "ARBITER_X=two words\nPATH=/usr/bin:/bin\n");
}

TEST_F(process_test, honours_cwd) {
  fs::create_directory(m_dir / "work");
  auto spec = shell("pwd -P");
  spec.cwd = (m_dir / "work").string();
  m_runner.run(spec);
  EXPECT_EQ(log(), (m_dir / "work").string() + "\n");
}

TEST_F(process_test, missing_program_fails_to_start) {
  auto spec = shell("");
  spec.argv = {"arbiter-no-such-program", "x"};
  auto const result = m_runner.run(spec);
  EXPECT_EQ(result.end, process_end::failed_to_start);
  EXPECT_NE(result.error.find("No such file or directory"), std::string::npos) << result.error;
  EXPECT_EQ(describe(result).rfind("failed to start: cannot execute 'arbiter-no-such-program'", 0), 0u) << describe(result);
}

TEST_F(process_test, missing_cwd_fails_to_start) {
  auto spec = shell("true");
  spec.cwd = (m_dir / "absent").string();
  auto const result = m_runner.run(spec);
  EXPECT_EQ(result.end, process_end::failed_to_start);
  EXPECT_NE(result.error.find("chdir("), std::string::npos) << result.error;
}

TEST_F(process_test, empty_argv_fails_to_start) {
  auto spec = shell("");
  spec.argv.clear();
  EXPECT_EQ(m_runner.run(spec).end, process_end::failed_to_start);
}

TEST_F(process_test, runs_a_script_without_shebang_through_sh) {
  auto const script = m_dir / "script";
  std::ofstream(script) << "echo via-sh\n";
  fs::permissions(script, fs::perms::owner_all);
  auto spec = shell("");
  spec.argv = {script.string()};
  auto const result = m_runner.run(spec);
  EXPECT_EQ(result.end, process_end::exited) << describe(result);
  EXPECT_EQ(log(), "via-sh\n");
}

TEST_F(process_test, honours_file_size_limit) {
  auto spec = shell("head -c 5000 /dev/zero > big");
  spec.cwd = m_dir.string();
  spec.limits.max_file_bytes = 1000;
  auto const result = m_runner.run(spec);
  EXPECT_EQ(result.end, process_end::exited);
  EXPECT_NE(result.exit_code, 0); // head dies of SIGXFSZ
  EXPECT_EQ(fs::file_size(m_dir / "big"), 1000u);
}

TEST_F(process_test, sets_core_and_open_file_limits) {
  auto spec = shell("ulimit -c; ulimit -n");
  spec.limits.max_open_files = 64;
  m_runner.run(spec);
  EXPECT_EQ(log(), "0\n64\n");
}

TEST_F(process_test, child_sees_only_standard_descriptors) {
  int const leaked = ::open("/dev/null", O_RDONLY); // deliberately without O_CLOEXEC
  ASSERT_GE(leaked, 0);
  auto const result = m_runner.run(shell("ls /proc/self/fd"));
  ::close(leaked);
  ASSERT_EQ(result.end, process_end::exited);
  EXPECT_EQ(log(), "0\n1\n2\n3\n"); // 3 is ls's own handle on the directory
}

TEST_F(process_test, channel_keeps_what_the_child_writes_to_descriptor_3) {
  auto spec = shell("printf 'a\\n' >&3; echo out; printf 'b\\n' >&3");
  spec.channel_path = (m_dir / "channel").string();
  std::ofstream(spec.channel_path) << "stale";
  auto const result = m_runner.run(spec);
  ASSERT_EQ(result.end, process_end::exited);
  EXPECT_EQ(read_file(spec.channel_path), "a\nb\n");
  EXPECT_EQ(result.channel_bytes, 4u);
  EXPECT_FALSE(result.channel_truncated);
  EXPECT_EQ(log(), "out\n");
}

TEST_F(process_test, channel_is_the_only_descriptor_beside_the_standard_ones) {
  auto spec = shell("ls /proc/self/fd");
  spec.channel_path = (m_dir / "channel").string();
  m_runner.run(spec);
  EXPECT_EQ(log(), "0\n1\n2\n3\n4\n"); // 3 the channel, 4 is ls's own handle on the directory
}

TEST_F(process_test, without_a_channel_descriptor_3_is_closed) {
  auto const result = m_runner.run(shell("{ printf x >&3; } 2>/dev/null && echo open || echo closed"));
  ASSERT_EQ(result.end, process_end::exited);
  EXPECT_EQ(log(), "closed\n");
}

TEST_F(process_test, channel_is_kept_whole_up_to_its_cap) {
  auto spec = shell("yes abcdefghi | head -c 3000000 >&3");
  spec.channel_path = (m_dir / "channel").string();
  auto const result = m_runner.run(spec);
  ASSERT_EQ(result.end, process_end::exited);
  EXPECT_EQ(fs::file_size(spec.channel_path), 3000000u); // no head and tail: the log would elide this
  spec = shell("printf 0123456789abcdef >&3");
  spec.channel_path = (m_dir / "channel").string();
  spec.channel_max_bytes = 10;
  auto const capped = m_runner.run(spec);
  EXPECT_TRUE(capped.channel_truncated);
  EXPECT_EQ(capped.channel_bytes, 16u);
  EXPECT_EQ(read_file(spec.channel_path), "0123456789\n[... 6 bytes elided ...]\n");
}

TEST_F(process_test, stdin_is_empty) {
  m_runner.run(shell("wc -c"));
  EXPECT_EQ(log(), "0\n");
}

TEST_F(process_test, unwritable_log_throws_io_error) {
  auto spec = shell("true");
  spec.log_path = (m_dir / "absent" / "log").string();
  EXPECT_THROW(m_runner.run(spec), arbiter::io_error);
}

/// Waits up to 10 s for `path` to exist.
bool appears(const fs::path& path) {
  for (int attempt_idx = 0; attempt_idx < 200 && !fs::exists(path); ++attempt_idx)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  return fs::exists(path);
}

TEST_F(process_test, started_process_waits_at_its_gate_until_finish) {
  auto const ready = m_dir / "ready";
  auto const after = m_dir / "after";
  auto started =
      m_runner.start(shell("touch " + ready.string() + "; read -r x <&4; touch " + after.string() + "; echo \"got $x\""));
  ASSERT_TRUE(appears(ready));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(fs::exists(after)); // still behind the gate
  auto const result = started->finish();
  ASSERT_EQ(result.end, process_end::exited);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(log(), "got 1\n");
  EXPECT_GE(result.gated_s, 0.3);
  EXPECT_GE(result.wall_s, result.gated_s);
}

TEST_F(process_test, an_opened_gate_lets_the_process_go_on_before_finish) {
  auto const after = m_dir / "after";
  auto started = m_runner.start(shell("read -r x <&4; touch " + after.string()));
  started->open();
  EXPECT_TRUE(appears(after)); // no supervision yet, and the process runs
  auto const result = started->finish();
  ASSERT_EQ(result.end, process_end::exited);
  EXPECT_EQ(result.exit_code, 0);
}

TEST_F(process_test, wall_clock_limit_of_a_started_process_counts_from_its_gate) {
  auto spec = shell("read -r x <&4; sleep 0.5");
  spec.timeout_s = 1;
  auto started = m_runner.start(spec);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  auto const result = started->finish();
  EXPECT_EQ(result.end, process_end::exited);
  EXPECT_GE(result.wall_s, 2.0);
}

TEST_F(process_test, started_process_never_opened_is_killed) {
  auto const pid_file = m_dir / "pid";
  auto started = m_runner.start(shell("echo $$ > " + pid_file.string() + ".tmp; mv " + pid_file.string() + ".tmp " +
                                      pid_file.string() + "; read -r x <&4; sleep 60"));
  ASSERT_TRUE(appears(pid_file));
  pid_t const pid = std::stoi(read_file(pid_file));
  started.reset();
  EXPECT_TRUE(process_dead(pid));
}

TEST_F(process_test, started_process_that_ended_before_its_gate_reports_its_end) {
  auto started = m_runner.start(shell("exit 5"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto const result = started->finish(); // the gate's write meets a closed pipe: no SIGPIPE here
  ASSERT_EQ(result.end, process_end::exited);
  EXPECT_EQ(result.exit_code, 5);
}

TEST_F(process_test, gate_is_descriptor_4_beside_the_channel) {
  auto spec = shell("ls /proc/self/fd");
  spec.channel_path = (m_dir / "channel").string();
  auto const result = m_runner.start(spec)->finish();
  ASSERT_EQ(result.end, process_end::exited);
  EXPECT_EQ(log(), "0\n1\n2\n3\n4\n5\n"); // 3 the channel, 4 the gate, 5 is ls's own handle
}

TEST_F(process_test, gate_without_a_channel_leaves_descriptor_3_closed) {
  auto const result =
      m_runner.start(shell("{ printf x >&3; } 2>/dev/null && echo open || echo closed; read -r x <&4; echo $x"))->finish();
  ASSERT_EQ(result.end, process_end::exited);
  EXPECT_EQ(log(), "closed\n1\n");
}

TEST_F(process_test, failed_start_is_reported_by_finish) {
  auto spec = shell("true");
  spec.argv = {"/nonexistent/program"};
  auto const result = m_runner.start(spec)->finish();
  EXPECT_EQ(result.end, process_end::failed_to_start);
  EXPECT_NE(result.error.find("/nonexistent/program"), std::string::npos);
}

/// A runner without gates: counts the processes it was asked to run.
class counting_runner final : public process_runner {
 public:
  process_result run(const process_spec&) override {
    ++runs;
    process_result result;
    result.end = process_end::exited;
    result.exit_code = 0;
    return result;
  }
  int runs = 0;
};

TEST(process_runner, default_start_runs_nothing_until_finish) {
  counting_runner runner;
  auto started = runner.start(process_spec{});
  EXPECT_EQ(runner.runs, 0);
  EXPECT_EQ(started->finish().end, process_end::exited);
  EXPECT_EQ(runner.runs, 1);
}

TEST(describe, names_each_end) {
  process_result result;
  result.end = process_end::timed_out;
  result.timeout_s = 30;
  EXPECT_EQ(describe(result), "timed out after 30.0 s (wall clock)");
  result.end = process_end::signaled;
  result.signal = SIGKILL;
  EXPECT_EQ(describe(result), "killed by SIGKILL (signal 9)");
  result.signal = 40;
  EXPECT_EQ(describe(result), "killed by signal 40");
  result.end = process_end::failed_to_start;
  result.error = "fork: Resource temporarily unavailable";
  EXPECT_EQ(describe(result), "failed to start: fork: Resource temporarily unavailable");
}
