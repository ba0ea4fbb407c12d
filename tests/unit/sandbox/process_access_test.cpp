// What the outside clock does to a running process from outside it (sandbox::process_access): its
// CPU account stands still while it is held and moves once it is let go, and a process is found by
// the pid it has in its own namespace. Unisolated (SIGSTOP) everywhere; in a cgroup (cgroup.freeze)
// where the host gives one, else "skipped" with the reason.
#include "arbiter/sandbox/process.hpp"
#include "detail/proc_files.hpp"
#include "detail/process_access.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <thread>

namespace fs = std::filesystem;
using namespace arbiter::sandbox;

namespace {

process_spec spinner(const fs::path& dir) {
  process_spec spec;
  spec.argv = {"/bin/sh", "-c", "read -r x <&4; while :; do :; done"};
  spec.env = {{"PATH", "/usr/bin:/bin"}};
  spec.log_path = (dir / "log").string();
  spec.timeout_s = 2;
  return spec;
}

double cpu_over(const process_access& access, int ms) {
  const double before = access.cpu_ms().value_or(-1);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return access.cpu_ms().value_or(-1) - before;
}

/// Holds the spinner, checks its CPU account stands still, lets it go, checks it moves.
void expect_held_and_let_go(const process_access& access) {
  ASSERT_TRUE(access.cpu_ms && access.hold);
  EXPECT_GT(cpu_over(access, 100), 20.0); // spinning
  ASSERT_TRUE(access.hold(true));
  EXPECT_LT(cpu_over(access, 150), 5.0);
  ASSERT_TRUE(access.hold(false));
  EXPECT_GT(cpu_over(access, 100), 20.0);
}

class process_access_test : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("arbiter_access_" + std::to_string(::getpid()));
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }
  fs::path m_dir;
  posix_process_runner m_runner;
};

} // namespace

TEST_F(process_access_test, an_unisolated_process_is_held_by_signals_and_found_by_its_own_pid) {
  auto started = m_runner.start(spinner(m_dir));
  started->open();
  const process_access access = started->access();
  expect_held_and_let_go(access);
  ASSERT_TRUE(access.host_pid);
  EXPECT_FALSE(access.host_pid(::getpid())); // not one of its processes
  started->finish();                         // the timeout ends it
}

TEST_F(process_access_test, its_threads_are_read_from_outside_with_how_long_each_ran) {
  process_spec spec = spinner(m_dir);
  // A shell that spins in a child process while the leader waits: two processes, one busy.
  spec.argv = {"/bin/sh", "-c", "read -r x <&4; (while :; do :; done) & wait"};
  auto started = m_runner.start(spec);
  started->open();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const process_access access = started->access();
  ASSERT_TRUE(access.threads);
  const auto before = access.threads();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto after = access.threads();
  ASSERT_GE(after.size(), 2u); // the leader and its child, each one thread
  std::uint64_t busiest = 0, idlest = UINT64_MAX;
  for (const auto& t : after)
    for (const auto& b : before)
      if (b.tid == t.tid) {
        busiest = std::max(busiest, t.run_ns - b.run_ns);
        idlest = std::min(idlest, t.run_ns - b.run_ns);
      }
  EXPECT_GT(busiest, 20'000'000u); // the spinner ran most of the 100 ms
  EXPECT_LT(idlest, 5'000'000u);   // the waiting leader did not
  for (const auto& t : after) EXPECT_FALSE(t.name.empty()) << t.tid;
  started->finish();
}

TEST_F(process_access_test, a_process_in_a_cgroup_is_frozen_whole_and_found_through_nspid) {
  if (::geteuid() != 0) GTEST_SKIP() << "skipped: cgroups need root";
  process_spec spec = spinner(m_dir);
  spec.argv = {"/bin/sh", "-c", "read -r x <&4; (while :; do :; done) & while :; do :; done"}; // two spinners
  spec.sandbox.enabled = true;
  spec.sandbox.uid = ::geteuid();
  spec.sandbox.gid = ::getegid();
  spec.sandbox.cpu_max_cores = 2;
  auto started = m_runner.start(spec);
  started->open();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const process_access access = started->access();
  if (!access.hold) {
    started->finish();
    GTEST_SKIP() << "skipped: no cgroup v2 to freeze here";
  }
  expect_held_and_let_go(access);
  ASSERT_TRUE(access.host_pid);
  // The spinners' pids as their own namespace numbers them lead back to their host pids.
  int found = 0;
  for (int ns_pid = 1; ns_pid < 64; ++ns_pid)
    if (const auto host = access.host_pid(ns_pid); host && detail::innermost_pid(detail::read_proc(*host, "status")) == ns_pid)
      ++found;
  EXPECT_GE(found, 2);
  started->finish();
}
