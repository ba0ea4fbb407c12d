// The evaluation's cgroup on this host: the limits written where the host has them (the cgroup v2,
// or on a hybrid host a v1 folder of the controller's hierarchy) and read back, the folders gone
// after finish(), and a process spinning two threads held to one core by the quota. They need root
// and a writable cgroup, and say "skipped" with the reason without.
#include "arbiter/sandbox/host.hpp"
#include "arbiter/sandbox/process.hpp"
#include "detail/cgroup.hpp"
#include "sandbox/sandbox_files.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace fs = std::filesystem;
using namespace arbiter::sandbox;
using arbiter::sandbox::testing::read_file;

namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

/// A cgroup with a one-core quota and a process cap, or a skip with the reason.
class cgroup_test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "skipped: cgroups need root";
    detail::cgroup_limits limits;
    limits.cpu_max_cores = 1;
    limits.pids_max = 64;
    m_group = detail::evaluation_cgroup::create(limits, m_missing);
    if (!m_group.valid()) {
      std::string why;
      for (auto const& line : m_missing) why += line + "; ";
      GTEST_SKIP() << "skipped: no writable cgroup here (" << why << ")";
    }
  }
  std::vector<std::string> m_missing;
  detail::evaluation_cgroup m_group;
};

} // namespace

TEST_F(cgroup_test, writes_the_limits_where_the_host_has_them_and_reads_them_back) {
  auto const& controllers = m_group.controllers();
  if (has(controllers, "cpu")) {
    EXPECT_EQ(trimmed(read_file(fs::path(m_group.folder("cpu")) / "cpu.max")), "100000 100000");
  } else if (has(controllers, "cpu v1")) {
    EXPECT_EQ(trimmed(read_file(fs::path(m_group.folder("cpu")) / "cpu.cfs_quota_us")), "100000");
    EXPECT_EQ(trimmed(read_file(fs::path(m_group.folder("cpu")) / "cpu.cfs_period_us")), "100000");
  } else {
    ADD_FAILURE() << "no cpu quota written; missing: " << ::testing::PrintToString(m_missing);
  }
  if (has(controllers, "pids") || has(controllers, "pids v1")) {
    EXPECT_EQ(trimmed(read_file(fs::path(m_group.folder("pids")) / "pids.max")), "64");
  }
  std::vector<std::string> folders;
  for (const char* controller : {"cpu", "pids"})
    if (!m_group.folder(controller).empty()) folders.push_back(m_group.folder(controller));
  EXPECT_EQ(m_group.finish(), "");
  for (auto const& folder : folders) EXPECT_FALSE(fs::exists(folder)) << folder;
}

TEST_F(cgroup_test, a_cpuset_takes_the_parents_memory_nodes) {
  m_group.finish();
  detail::cgroup_limits limits;
  limits.cpus = "0";
  std::vector<std::string> missing;
  auto group = detail::evaluation_cgroup::create(limits, missing);
  auto const& controllers = group.controllers();
  if (!has(controllers, "cpuset") && !has(controllers, "cpuset v1"))
    GTEST_SKIP() << "skipped: no cpuset here (" << ::testing::PrintToString(missing) << ")";
  std::string const folder = group.folder("cpuset");
  EXPECT_EQ(trimmed(read_file(fs::path(folder) / "cpuset.cpus")), "0");
  EXPECT_FALSE(trimmed(read_file(fs::path(folder) / "cpuset.mems")).empty());
  group.finish();
  EXPECT_FALSE(fs::exists(folder));
}

// Two threads spinning for a second (sha256 of a large buffer lets go of the GIL) under the quota of
// one core: the process's CPU time per wall second stays near one, where two cores would give two.
TEST_F(cgroup_test, a_one_core_quota_holds_two_spinning_threads_to_one_core) {
  m_group.finish();
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "skipped: no /usr/bin/python3";
  std::string dir = (fs::temp_directory_path() / "arbiter-quota-XXXXXX").string();
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  process_spec spec;
  spec.argv = {"/usr/bin/python3", "-c",
               "import hashlib, threading, time\n"
               "data = b'x' * (1 << 20)\n"
               "end = time.monotonic() + 1.0\n"
               "def spin():\n"
               "    while time.monotonic() < end:\n"
               "        hashlib.sha256(data).digest()\n"
               "wall, cpu = time.monotonic(), time.process_time()\n"
               "threads = [threading.Thread(target=spin) for _ in range(2)]\n"
               "[t.start() for t in threads]\n"
               "[t.join() for t in threads]\n"
               "print('cpu_per_wall %.3f' % ((time.process_time() - cpu) / (time.monotonic() - wall)))\n"};
  spec.env = {{"PATH", "/usr/bin:/bin"}};
  spec.log_path = dir + "/log";
  spec.timeout_s = 30;
  spec.sandbox.enabled = true;
  spec.sandbox.uid = ::geteuid(); // the quota is the point here, not the view
  spec.sandbox.gid = ::getegid();
  spec.sandbox.cpu_max_cores = 1;
  auto const result = posix_process_runner().run(spec);
  std::string const log = read_file(spec.log_path);
  fs::remove_all(dir);
  bool const quota = std::any_of(result.isolation_layers.begin(), result.isolation_layers.end(),
                                 [](const std::string& layer) { return layer.find("cpu") != std::string::npos; });
  if (!quota) GTEST_SKIP() << "skipped: no cpu quota here (" << result.isolation_missing << ")";
  auto const at = log.find("cpu_per_wall ");
  ASSERT_NE(at, std::string::npos) << log;
  double const per_wall = std::strtod(log.c_str() + at + 13, nullptr);
  std::cout << "two spinning threads under a one-core quota: " << per_wall << " CPU s per wall s\n";
  EXPECT_LT(per_wall, 1.25) << log; // one period's burst over the second at most
}
