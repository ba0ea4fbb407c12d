// The sandbox's outer walls, with real processes, through each engine this machine has (bubblewrap
// and the hand-written one): what a candidate listing / and /proc sees, files left outside its own
// folder, processes that leave the group, the scratch and work folder caps, the system call filter,
// descriptors 3 and 4, the signal a program died of and the timeout. They need root and say
// "skipped" without.
#include "arbiter/sandbox/host.hpp"
#include "arbiter/sandbox/process.hpp"
#include "sandbox/sandbox_files.hpp"

#include <gtest/gtest.h>

#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using namespace arbiter::sandbox;

namespace {

using arbiter::sandbox::testing::read_file;
using arbiter::sandbox::testing::sandbox_uid;

/// Host processes whose command line holds `marker`.
int processes_with(const std::string& marker) {
  int found = 0;
  for (auto const& entry : fs::directory_iterator("/proc")) {
    std::string const name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = read_file(entry.path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(marker) != std::string::npos) ++found;
  }
  return found;
}

std::string engine_name(isolation_engine engine) { return engine == isolation_engine::native ? "native" : "bubblewrap"; }

class allow_list_test : public ::testing::TestWithParam<isolation_engine> {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "skipped: isolation needs root";
    if (GetParam() == isolation_engine::bubblewrap && describe_host_isolation().engine != "bubblewrap")
      GTEST_SKIP() << "skipped: no bubblewrap here (" << describe_host_isolation().engine_note << ")";
    std::string pattern = (fs::temp_directory_path() / "arbiter-allow-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_dir = fs::canonical(pattern);
    fs::permissions(m_dir, fs::perms(0755));
    fs::create_directories(m_dir / "data/evals/1/work");
    fs::create_directories(m_dir / "project/src");
    std::ofstream(m_dir / "project/src/secret.cpp") << "secret";
    ASSERT_EQ(::chown((m_dir / "data/evals/1/work").c_str(), sandbox_uid, sandbox_uid), 0);
  }
  void TearDown() override {
    if (!m_dir.empty()) fs::remove_all(m_dir);
  }

  process_spec isolated(const std::string& script) const {
    process_spec spec;
    spec.argv = {"/bin/sh", "-c", script};
    spec.env = {{"PATH", "/usr/bin:/bin"}};
    spec.log_path = (m_dir / "log").string();
    spec.timeout_s = 30;
    spec.cwd = (m_dir / "data/evals/1/work").string();
    spec.sandbox.enabled = true;
    spec.sandbox.engine = GetParam();
    spec.sandbox.uid = sandbox_uid;
    spec.sandbox.gid = sandbox_uid;
    spec.sandbox.hidden_paths = {(m_dir / "data").string(), (m_dir / "project").string()};
    spec.sandbox.writable_paths = {(m_dir / "data/evals/1").string()};
    spec.sandbox.scratch_paths = {"/tmp", "/var/tmp", "/dev/shm", "/run/lock"};
    spec.sandbox.scratch_max_bytes = 8 << 20;
    spec.sandbox.size_capped_paths = {(m_dir / "data/evals/1/work").string()};
    spec.sandbox.max_work_bytes = 4 << 20;
    spec.sandbox.pids_max = 256;
    return spec;
  }
  process_result run(const process_spec& spec) {
    auto const result = m_runner.run(spec);
    EXPECT_TRUE(result.isolation_applied) << result.isolation_note;
    EXPECT_EQ(result.isolation_engine, engine_name(GetParam()));
    return result;
  }
  std::string run_ok(const std::string& script) {
    auto const result = run(isolated(script));
    EXPECT_EQ(describe(result), "exited with status 0") << read_file(m_dir / "log");
    return read_file(m_dir / "log");
  }
  bool has_layer(const process_result& result, const std::string& layer) {
    return std::find(result.isolation_layers.begin(), result.isolation_layers.end(), layer) != result.isolation_layers.end();
  }

  fs::path m_dir;
  posix_process_runner m_runner;
};

} // namespace

TEST_P(allow_list_test, sees_only_its_own_processes) {
  auto const out = run_ok("echo pids=$(ls /proc | grep -c '^[0-9]*$'); echo comm1=$(cat /proc/1/comm); echo ppid=$PPID");
  // PID 1 (bwrap's or arbiter's init), the shell, its command substitutions: a handful, none of the host's.
  auto const pids_at = out.find("pids=");
  ASSERT_NE(pids_at, std::string::npos) << out;
  EXPECT_LE(std::stoi(out.substr(pids_at + 5)), 5) << out;
  EXPECT_EQ(out.find("comm1=" + read_file("/proc/1/comm")), std::string::npos) << out; // not the host's init
  EXPECT_NE(out.find("ppid=1\n"), std::string::npos) << out;
}

TEST_P(allow_list_test, root_holds_only_the_allow_list) {
  auto const out =
      run_ok("ls -A /; echo --; ls -A " + m_dir.string() + "; echo --; cat " + (m_dir / "project/src/secret.cpp").string() +
             " || echo NO-PROJECT; ls /root /home /run/user 2>&1 | head -3; echo end");
  EXPECT_NE(out.find("NO-PROJECT"), std::string::npos) << out;
  EXPECT_EQ(out.find("\nsecret"), std::string::npos) << out;
  if (GetParam() != isolation_engine::bubblewrap) return; // the hand-written engine hides a deny-list only
  std::istringstream lines(out);
  std::set<std::string> root;
  for (std::string line; std::getline(lines, line) && line != "--";) root.insert(line);
  std::set<std::string> const allowed{
      "bin",   "dev",    "etc",  "lib",  "lib32",
      "lib64", "libx32", "proc", "sbin", "sys",
      "tmp",   "usr",    "var",  "run",  m_dir.begin()->string() == "/" ? std::next(m_dir.begin())->string() : ""};
  for (auto const& entry : root) EXPECT_TRUE(allowed.count(entry)) << "/" << entry << " is visible:\n" << out;
  EXPECT_FALSE(root.count("home")) << out;
  EXPECT_FALSE(root.count("root")) << out;
  // Of the test's folder only the way to its own evaluation: no project/, no log.
  EXPECT_NE(out.find("--\ndata\n--"), std::string::npos) << out;
}

TEST_P(allow_list_test, leaves_nothing_outside_its_folder) {
  std::string const marker = "arbiter-allow-marker-" + std::to_string(::getpid());
  for (const char* folder : {"/run/lock", "/var/tmp", "/dev/shm", "/tmp"}) fs::remove(fs::path(folder) / marker);
  run_ok("for d in /run/lock /var/tmp /dev/shm /tmp; do echo x > $d/" + marker + " && echo wrote $d; done; true");
  for (const char* folder : {"/run/lock", "/var/tmp", "/dev/shm", "/tmp"})
    EXPECT_FALSE(fs::exists(fs::path(folder) / marker)) << folder;
}

TEST_P(allow_list_test, no_process_outlives_the_run) {
  std::string const marker = std::to_string(30 + ::getpid() % 1000) + ".7071";
  auto const start = std::chrono::steady_clock::now();
  auto const result = run(isolated("setsid sleep " + marker + " </dev/null >/dev/null 2>&1 & setsid sh -c 'sleep " + marker +
                                   "' & sleep 0.2; echo forked"));
  EXPECT_EQ(describe(result), "exited with status 0") << read_file(m_dir / "log");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  // Under bubblewrap the namespace's init holds them until the supervisor has looked: both are
  // reported, by their command lines (the hand-written engine's init ends with the program, and the
  // kernel takes them down first).
  if (GetParam() == isolation_engine::bubblewrap && describe_host_isolation().cgroup) {
    // Two, or three where the second shell forks its sleep rather than exec it.
    EXPECT_GE(result.survivors.size(), 2u) << ::testing::PrintToString(result.survivors);
    for (auto const& command : result.survivors) EXPECT_NE(command.find("sleep " + marker), std::string::npos) << command;
  }
  int left = processes_with("sleep " + marker);
  for (int wait_idx = 0; wait_idx < 20 && left > 0; ++wait_idx) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = processes_with("sleep " + marker);
  }
  EXPECT_EQ(left, 0);
}

TEST_P(allow_list_test, scratch_is_capped) {
  auto const out = run_ok("head -c 16777216 /dev/zero > /dev/shm/fill || echo SHM-FULL; ls -l /dev/shm/fill | cut -d' ' -f5");
  EXPECT_NE(out.find("SHM-FULL"), std::string::npos) << out;
  EXPECT_NE(out.find("No space left on device"), std::string::npos) << out;
}

TEST_P(allow_list_test, work_folder_past_its_cap_is_trimmed_and_said) {
  auto const result = run(isolated("head -c 6291456 /dev/zero > big.bin; echo small > small.txt"));
  EXPECT_EQ(result.end, process_end::exited);
  EXPECT_NE(result.limit_exceeded.find("over its cap of 4.0 MiB: 1 file"), std::string::npos) << result.limit_exceeded;
  EXPECT_FALSE(fs::exists(m_dir / "data/evals/1/work/big.bin"));
  EXPECT_TRUE(fs::exists(m_dir / "data/evals/1/work/small.txt"));
  auto const fits = run(isolated("echo small > small.txt"));
  EXPECT_EQ(fits.limit_exceeded, "");
}

TEST_P(allow_list_test, seccomp_denies_tracing_and_inet_sockets) {
  if (!describe_host_isolation().seccomp) GTEST_SKIP() << "skipped: " << describe_host_isolation().seccomp_note;
  auto const out =
      run_ok("python3 -c '\n"
             "import ctypes, os, socket\n"
             "libc = ctypes.CDLL(None, use_errno=True)\n"
             "for family, name in ((socket.AF_INET, \"inet\"), (socket.AF_INET6, \"inet6\"), (socket.AF_UNIX, \"unix\")):\n"
             "    try:\n"
             "        socket.socket(family, socket.SOCK_STREAM).close(); print(name, \"allowed\")\n"
             "    except OSError as e:\n"
             "        print(name, \"errno\", e.errno)\n"
             "print(\"ptrace\", libc.ptrace(0, 0, 0, 0), ctypes.get_errno())\n"
             "print(\"unshare\", libc.unshare(0x20000000), ctypes.get_errno())\n"
             "'");
  EXPECT_NE(out.find("inet errno 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("inet6 errno 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("unix allowed\n"), std::string::npos) << out;
  EXPECT_NE(out.find("ptrace -1 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("unshare -1 1\n"), std::string::npos) << out;
  auto const result = run(isolated("true"));
  EXPECT_TRUE(has_layer(result, "seccomp")) << result.isolation_missing;
}

TEST_P(allow_list_test, keeps_the_channel_and_the_gate_and_the_signal) {
  process_spec spec = isolated("read -r line <&4; echo \"gate:$line\"; echo on-channel >&3; kill -SEGV $$");
  spec.channel_path = (m_dir / "channel").string();
  auto started = m_runner.start(spec);
  auto const result = started->finish();
  EXPECT_EQ(describe(result), "killed by SIGSEGV (signal 11)") << read_file(m_dir / "log");
  EXPECT_EQ(read_file(m_dir / "channel"), "on-channel\n");
  EXPECT_EQ(run(isolated("exit 3")).exit_code, 3);
}

TEST_P(allow_list_test, runs_in_a_cgroup_of_its_own_where_the_host_has_one) {
  auto const& host = describe_host_isolation();
  auto const result = run(isolated("cat /proc/self/cgroup"));
  if (!host.cgroup) {
    EXPECT_NE(result.isolation_missing.find("cgroup"), std::string::npos) << result.isolation_missing;
    GTEST_SKIP() << "skipped: no writable cgroup v2 here (" << host.cgroup_parent << ")";
  }
  bool const layered = std::any_of(result.isolation_layers.begin(), result.isolation_layers.end(),
                                   [](const std::string& layer) { return layer.rfind("cgroup", 0) == 0; });
  EXPECT_TRUE(layered) << result.isolation_missing;
  EXPECT_NE(read_file(m_dir / "log").find("arbiter-" + std::to_string(::getpid()) + "-"), std::string::npos)
      << read_file(m_dir / "log");
  for (auto const& entry : fs::directory_iterator(host.cgroup_parent)) // removed once the run ended
    EXPECT_EQ(entry.path().filename().string().rfind("arbiter-" + std::to_string(::getpid()) + "-", 0), std::string::npos)
        << entry.path();
}

INSTANTIATE_TEST_SUITE_P(engines, allow_list_test, ::testing::Values(isolation_engine::bubblewrap, isolation_engine::native),
                         [](const auto& info) { return engine_name(info.param); });

TEST_P(allow_list_test, a_timeout_ends_the_whole_sandbox_at_once) {
  process_spec spec = isolated("sleep 60 & sleep 60");
  spec.timeout_s = 0.5;
  spec.kill_grace_s = 10; // SIGTERM alone must end it: the grace is never waited out
  auto const start = std::chrono::steady_clock::now();
  auto const result = run(spec);
  EXPECT_EQ(result.end, process_end::timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
}
