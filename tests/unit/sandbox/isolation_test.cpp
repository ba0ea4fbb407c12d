// Real isolated processes, through whichever engine this machine gives (bubblewrap or the
// hand-written one): the sandbox user, hidden and bound-back paths, the private network and
// scratch folders, and the degraded path when arbiter is not root. The isolating tests need root
// and say "skipped" without it.
#include "arbiter/sandbox/process.hpp"
#include "sandbox/sandbox_files.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace arbiter::sandbox;

namespace {

using arbiter::sandbox::testing::read_file;
using arbiter::sandbox::testing::sandbox_uid;

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

/// A grader's folder (data/) with expected outputs and a database, an evaluation folder the
/// candidate may write, and an exchange folder it may only read.
class isolation_test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "arbiter-isolation-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_dir = fs::canonical(pattern);
    fs::permissions(m_dir, fs::perms(0755));
    write_file(m_dir / "data/reference/r1/expected/outputs.arbb", "expected");
    write_file(m_dir / "data/reference/r1/exchange/inputs.arbb", "inputs");
    write_file(m_dir / "data/evals/1/job.json", "{}");
    write_file(m_dir / "data/evals/2/work/kernel.py", "other model");
    write_file(m_dir / "results.db", "database");
    fs::create_directories(m_dir / "data/evals/1/work");
    ASSERT_EQ(::chown((m_dir / "data/evals/1/work").c_str(), sandbox_uid, sandbox_uid), 0);
    fs::create_directories(m_dir / "scratch");
  }
  void TearDown() override { fs::remove_all(m_dir); }

  process_spec isolated(const std::string& script) const {
    process_spec spec;
    spec.argv = {"/bin/sh", "-c", script};
    spec.env = {{"PATH", "/usr/bin:/bin"}};
    spec.log_path = (m_dir / "log").string();
    spec.timeout_s = 30;
    spec.cwd = (m_dir / "data/evals/1/work").string();
    spec.sandbox.enabled = true;
    spec.sandbox.uid = sandbox_uid;
    spec.sandbox.gid = sandbox_uid;
    spec.sandbox.hidden_paths = {(m_dir / "data").string(), (m_dir / "results.db").string()};
    spec.sandbox.writable_paths = {(m_dir / "data/evals/1").string()};
    spec.sandbox.exposed_paths = {(m_dir / "data/reference/r1/exchange").string()};
    spec.sandbox.scratch_paths = {(m_dir / "scratch").string()};
    return spec;
  }
  /// The script's output, after checking that it ran isolated and exited 0.
  std::string run_isolated(const std::string& script, bool seccomp = true) {
    process_spec spec = isolated(script);
    spec.sandbox.seccomp = seccomp; // off where a test looks at the network namespace alone
    auto const result = m_runner.run(spec);
    EXPECT_EQ(describe(result), "exited with status 0") << read_file(m_dir / "log");
    EXPECT_TRUE(result.isolation_applied) << result.isolation_note;
    EXPECT_EQ(result.isolation_note, "");
    return read_file(m_dir / "log");
  }

  fs::path m_dir;
  posix_process_runner m_runner;
};

#define ARB_NEEDS_ROOT()                                                                                                         \
  if (::geteuid() != 0) GTEST_SKIP() << "skipped: isolation needs root"

} // namespace

TEST_F(isolation_test, runs_as_the_sandbox_user_without_new_privileges) {
  ARB_NEEDS_ROOT();
  auto const out = run_isolated("id -u; id -g; id -G; grep NoNewPrivs /proc/self/status");
  EXPECT_NE(out.find("65534\n65534\n65534\n"), std::string::npos) << out;
  EXPECT_NE(out.find("NoNewPrivs:\t1"), std::string::npos) << out;
}

TEST_F(isolation_test, cannot_read_hidden_files) {
  ARB_NEEDS_ROOT();
  auto const out =
      run_isolated("cat ../../../reference/r1/expected/outputs.arbb && echo READ-EXPECTED; "
                   "cat ../../2/work/kernel.py && echo READ-OTHER; "
                   "echo db=$(cat ../../../../results.db); echo evals=$(ls ../..); echo ref=$(ls ../../../reference/r1)");
  EXPECT_EQ(out.find("READ-EXPECTED"), std::string::npos) << out;
  EXPECT_EQ(out.find("READ-OTHER"), std::string::npos) << out;
  EXPECT_NE(out.find("No such file or directory"), std::string::npos) << out;
  EXPECT_NE(out.find("db=\n"), std::string::npos) << out;          // the database reads empty
  EXPECT_NE(out.find("evals=1\n"), std::string::npos) << out;      // only its own evaluation
  EXPECT_NE(out.find("ref=exchange\n"), std::string::npos) << out; // no expected/ beside it
  EXPECT_EQ(read_file(m_dir / "results.db"), "database");
}

TEST_F(isolation_test, writes_only_its_own_folder) {
  ARB_NEEDS_ROOT();
  auto const out = run_isolated("echo mine > own.txt && echo WROTE-OWN; "
                                "cat ../../../reference/r1/exchange/inputs.arbb && echo; "
                                "echo x > ../../../reference/r1/exchange/inputs.arbb || echo EXCHANGE-READ-ONLY; "
                                "echo x > ../job.json || echo JOB-READ-ONLY; "
                                "echo x > ../../3.txt || echo EVALS-READ-ONLY; "
                                "echo x > " +
                                (m_dir / "planted").string() +
                                " || echo OUTSIDE-DENIED; "
                                "echo x > " +
                                (m_dir / "results.db").string() + " || echo DB-DENIED");
  EXPECT_NE(out.find("WROTE-OWN"), std::string::npos) << out;
  EXPECT_NE(out.find("inputs"), std::string::npos) << out;
  for (const char* denied : {"EXCHANGE-READ-ONLY", "JOB-READ-ONLY", "EVALS-READ-ONLY", "OUTSIDE-DENIED", "DB-DENIED"})
    EXPECT_NE(out.find(denied), std::string::npos) << denied << " in\n" << out;
  EXPECT_EQ(read_file(m_dir / "data/evals/1/work/own.txt"), "mine\n");
  EXPECT_EQ(read_file(m_dir / "data/reference/r1/exchange/inputs.arbb"), "inputs");
  EXPECT_EQ(read_file(m_dir / "results.db"), "database");
  EXPECT_FALSE(fs::exists(m_dir / "planted"));
  EXPECT_FALSE(fs::exists(m_dir / "data/evals/3.txt"));
}

TEST_F(isolation_test, scratch_folder_is_private) {
  ARB_NEEDS_ROOT();
  write_file(m_dir / "scratch/left-by-another", "x");
  auto const out = run_isolated("ls -A " + (m_dir / "scratch").string() + "; echo planted > " +
                                (m_dir / "scratch/mine").string() + " && echo SCRATCH-WRITABLE");
  EXPECT_EQ(out.find("left-by-another"), std::string::npos) << out;
  EXPECT_NE(out.find("SCRATCH-WRITABLE"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(m_dir / "scratch/mine"));
}

TEST_F(isolation_test, has_no_network_but_a_down_loopback) {
  ARB_NEEDS_ROOT();
  auto const out = run_isolated("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; "
                                "python3 -c 'import socket\n"
                                "s = socket.socket()\n"
                                "s.settimeout(2)\n"
                                "try:\n"
                                "    s.connect((\"192.0.2.1\", 80)); print(\"CONNECTED\")\n"
                                "except OSError as e:\n"
                                "    print(\"connect failed:\", e.errno)'",
                                false);
  EXPECT_EQ(out.find("CONNECTED"), std::string::npos) << out;
  EXPECT_NE(out.find("connect failed: 101"), std::string::npos) << out; // ENETUNREACH
  std::istringstream lines(out);
  std::string first_line;
  std::getline(lines, first_line);
  EXPECT_EQ(first_line, "lo") << out;
  EXPECT_EQ(out.find("eth"), std::string::npos) << out;
}

TEST_F(isolation_test, off_by_default_and_says_nothing) {
  process_spec spec = isolated("id -u");
  spec.sandbox = {};
  auto const result = m_runner.run(spec);
  EXPECT_EQ(result.end, process_end::exited);
  EXPECT_FALSE(result.isolation_applied);
  EXPECT_EQ(result.isolation_note, "");
  EXPECT_EQ(read_file(m_dir / "log"), std::to_string(::geteuid()) + "\n");
}

// A parent that is not root cannot isolate: the child runs with what the parent has, and the
// result says so. As root the test drops to the sandbox user in a forked helper first.
TEST_F(isolation_test, degrades_visibly_when_not_root) {
  fs::permissions(m_dir, fs::perms(0777));
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  pid_t const helper = ::fork();
  ASSERT_GE(helper, 0);
  if (helper == 0) {
    ::close(report[0]);
    if (::geteuid() == 0 && (::setgid(sandbox_uid) != 0 || ::setuid(sandbox_uid) != 0)) ::_exit(90);
    process_spec spec = isolated("id -u");
    spec.cwd.clear();
    spec.log_path = (m_dir / "helper-log").string();
    auto const result = posix_process_runner().run(spec);
    std::string const line = std::to_string(result.isolation_applied) + "|" + describe(result) + "|" + result.isolation_note;
    if (::write(report[1], line.data(), line.size()) < 0) ::_exit(91);
    ::_exit(0);
  }
  ::close(report[1]);
  std::string got;
  char buffer[512];
  for (ssize_t n; (n = ::read(report[0], buffer, sizeof buffer)) > 0;) got.append(buffer, static_cast<std::size_t>(n));
  ::close(report[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(helper, &status, 0), helper);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(got.rfind("0|exited with status 0|arbiter runs as uid ", 0), 0u) << got;
  EXPECT_NE(got.find("not root"), std::string::npos) << got;
}
