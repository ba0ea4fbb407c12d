// The bubblewrap engine's command line as a pure function of the isolation: namespaces, the
// allow-list root's binds in depth order, size-capped scratch, hidden paths inside bound ones,
// the seccomp descriptor and the user switch.
#include "detail/bwrap_plan.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace arbiter::sandbox;
using namespace arbiter::sandbox::detail;

namespace {

class bwrap_plan_test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "arbiter-bwrap-plan-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_dir = fs::canonical(pattern);
    for (const char* folder : {"sys/usr", "data/evals/1/work", "data/reference/r1/exchange", "venv/suite", "venv/suite/keep"})
      fs::create_directories(m_dir / folder);
    std::ofstream(m_dir / "venv/db.sqlite") << "db";
    fs::create_symlink("usr/bin", m_dir / "sys/bin");
  }
  void TearDown() override { fs::remove_all(m_dir); }

  isolation wanted() const {
    isolation iso;
    iso.enabled = true;
    iso.uid = 2000123;
    iso.gid = 65534;
    iso.system_paths = {(m_dir / "sys/usr").string(), (m_dir / "sys/bin").string(), (m_dir / "sys/missing").string()};
    iso.writable_paths = {(m_dir / "data/evals/1").string()};
    iso.exposed_paths = {(m_dir / "data/reference/r1/exchange").string(), (m_dir / "venv").string(),
                         (m_dir / "venv/suite/keep").string()};
    iso.hidden_paths = {(m_dir / "data").string(), (m_dir / "venv/suite").string(), (m_dir / "venv/db.sqlite").string()};
    iso.scratch_paths = {"/tmp", "/dev/shm"};
    iso.scratch_max_bytes = 1 << 20;
    return iso;
  }
  static bwrap_request request(bool seccomp = true) {
    return {"/usr/bin/bwrap", "/usr/bin/setpriv", {"/dev/nvidia0"}, "/w", seccomp, {"/usr/bin/python3", "-m", "x"}};
  }
  /// Index of the first occurrence of the sequence `what` in argv, or -1.
  static long find(const std::vector<std::string>& argv, const std::vector<std::string>& what) {
    auto const it = std::search(argv.begin(), argv.end(), what.begin(), what.end());
    return it == argv.end() ? -1 : static_cast<long>(it - argv.begin());
  }

  fs::path m_dir;
};

} // namespace

TEST_F(bwrap_plan_test, opens_with_namespaces_and_a_fresh_proc_and_dev) {
  auto const argv = bwrap_argv(wanted(), request());
  ASSERT_FALSE(argv.empty());
  EXPECT_EQ(argv.front(), "/usr/bin/bwrap");
  for (const char* flag : {"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net"})
    EXPECT_GE(find(argv, {flag}), 0) << flag;
  // Not --die-with-parent: the namespace's init must outlive bwrap's outer process until the
  // supervisor has looked for survivors; it dies with the supervised group.
  EXPECT_EQ(find(argv, {"--die-with-parent"}), -1);
  EXPECT_GE(find(argv, {"--proc", "/proc"}), 0);
  EXPECT_GE(find(argv, {"--dev", "/dev"}), 0);
  EXPECT_GE(find(argv, {"--dev-bind-try", "/dev/nvidia0", "/dev/nvidia0"}), 0);
  // Not --new-session: the program stays in the supervised process group, so a timeout's SIGTERM
  // reaches it; it has no terminal to push input into.
  EXPECT_EQ(find(argv, {"--new-session"}), -1);
}

TEST_F(bwrap_plan_test, binds_only_the_allow_list) {
  auto const argv = bwrap_argv(wanted(), request());
  std::string const evals = (m_dir / "data/evals/1").string();
  std::string const exchange = (m_dir / "data/reference/r1/exchange").string();
  EXPECT_GE(find(argv, {"--ro-bind", (m_dir / "sys/usr").string(), (m_dir / "sys/usr").string()}), 0);
  EXPECT_GE(find(argv, {"--symlink", "usr/bin", (m_dir / "sys/bin").string()}), 0); // a symlink is made again
  EXPECT_EQ(find(argv, {(m_dir / "sys/missing").string()}), -1);
  EXPECT_GE(find(argv, {"--bind", evals, evals}), 0);
  EXPECT_GE(find(argv, {"--ro-bind", exchange, exchange}), 0);
  EXPECT_EQ(find(argv, {(m_dir / "data").string(), (m_dir / "data").string()}), -1); // data/ itself is never bound
  // The folders on the way to a bind are made walkable (bwrap's own would be 0700).
  EXPECT_GE(find(argv, {"--perms", "0755", "--dir", (m_dir / "data/evals").string()}), 0);
  EXPECT_EQ(find(argv, {"--dir", (m_dir / "data/reference/r1/exchange").string()}), -1);
}

TEST_F(bwrap_plan_test, scratch_is_a_size_capped_tmpfs) {
  auto const argv = bwrap_argv(wanted(), request());
  EXPECT_GE(find(argv, {"--perms", "1777", "--size", "1048576", "--tmpfs", "/tmp"}), 0);
  EXPECT_GE(find(argv, {"--perms", "1777", "--size", "1048576", "--tmpfs", "/dev/shm"}), 0);
  auto uncapped = wanted();
  uncapped.scratch_max_bytes = 0;
  EXPECT_GE(find(bwrap_argv(uncapped, request()), {"--perms", "1777", "--tmpfs", "/tmp"}), 0);
}

TEST_F(bwrap_plan_test, hides_what_lies_inside_a_bound_path_and_binds_back_below_it) {
  auto const argv = bwrap_argv(wanted(), request());
  std::string const venv = (m_dir / "venv").string(), suite = (m_dir / "venv/suite").string(),
                    keep = (m_dir / "venv/suite/keep").string();
  long const bind_venv = find(argv, {"--ro-bind", venv, venv});
  long const hide_suite = find(argv, {"--perms", "0755", "--tmpfs", suite});
  long const bind_keep = find(argv, {"--ro-bind", keep, keep});
  long const read_only = find(argv, {"--remount-ro", suite});
  ASSERT_GE(bind_venv, 0);
  ASSERT_GE(hide_suite, 0);
  ASSERT_GE(bind_keep, 0);
  EXPECT_LT(bind_venv, hide_suite);
  EXPECT_LT(hide_suite, bind_keep);
  EXPECT_GT(read_only, bind_keep);
  EXPECT_GE(find(argv, {"--ro-bind", "/dev/null", (m_dir / "venv/db.sqlite").string()}), 0);
  EXPECT_EQ(find(argv, {"--tmpfs", (m_dir / "data").string()}), -1); // outside every bind: nothing to hide
}

TEST_F(bwrap_plan_test, ends_with_the_filter_and_the_user_switch) {
  auto const argv = bwrap_argv(wanted(), request());
  long const chdir = find(argv, {"--chdir", "/w"});
  long const seccomp = find(argv, {"--seccomp", std::to_string(bwrap_seccomp_fd)});
  long const program = find(argv, {"--", "/usr/bin/setpriv", "--reuid=2000123", "--regid=65534", "--clear-groups"});
  ASSERT_GE(program, 0);
  EXPECT_LT(chdir, program);
  EXPECT_LT(seccomp, program);
  EXPECT_GE(find(argv, {"--no-new-privs", "--", "/usr/bin/python3", "-m", "x"}), 0);
  EXPECT_EQ(argv.back(), "x");
  EXPECT_EQ(find(bwrap_argv(wanted(), request(false)), {"--seccomp"}), -1);
  EXPECT_GT(bwrap_seccomp_fd, 5); // clear of stdio, the channel (3), the gate (4) and the clock (5)
  EXPECT_GT(child_lift_floor, bwrap_seccomp_fd);
}

TEST(bwrap_toolchain, binds_what_the_environment_names) {
  auto const paths = toolchain_paths({{"PATH", "/opt/venv/bin::relative:/usr/bin"},
                                      {"LD_LIBRARY_PATH", "/opt/cuda/lib64"},
                                      {"CUDA_HOME", "/usr/local/cuda"},
                                      {"CC", "/opt/gcc/bin/gcc"},
                                      {"CXX", "/opt/llvm/clang++"},
                                      {"HOME", "/home/someone"}});
  std::vector<std::string> const expected{"/opt/venv/bin",   "/usr/bin", "/opt/cuda/lib64",
                                          "/usr/local/cuda", "/opt/gcc", "/opt/llvm"};
  EXPECT_EQ(paths, expected);
  EXPECT_TRUE(toolchain_paths({{"CC", "gcc"}}).empty()); // looked up on PATH: nothing of its own
}

TEST_F(bwrap_plan_test, keeps_the_network_namespace_when_asked) {
  auto shared = wanted();
  shared.new_net_ns = false;
  EXPECT_EQ(find(bwrap_argv(shared, request()), {"--unshare-net"}), -1);
}
