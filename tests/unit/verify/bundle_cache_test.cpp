#include "arbiter/common/error.hpp"
#include "arbiter/runtime/arbiter_runtime.h"
#include "arbiter/verify/bundle_cache.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace fs = std::filesystem;
using arbiter::verify::bundle_cache;

namespace {

const arbiter::catalog::tolerance k_tol{1e-3, 1e-3, arbiter::catalog::tolerance_mode::allclose};

class bundle_cache_test : public ::testing::Test {
 protected:
  fs::path m_dir = fs::temp_directory_path() / ("arbiter_bundle_cache_" + std::to_string(::getpid()));

  void SetUp() override { fs::create_directories(m_dir); }
  void TearDown() override { fs::remove_all(m_dir); }

  fs::path write(const std::string& name, std::vector<float> data) {
    const fs::path file = m_dir / name;
    arb_writer* w = nullptr;
    EXPECT_EQ(arb_writer_open(file.c_str(), &w), ARB_OK);
    const std::int64_t shape[1] = {static_cast<std::int64_t>(data.size())};
    EXPECT_EQ(arb_writer_add(w, ARB_KIND_TENSOR, ARB_F32, 1, shape, data.data(), data.size() * sizeof(float)), ARB_OK);
    EXPECT_EQ(arb_writer_close(w), ARB_OK);
    return file;
  }
};

} // namespace

TEST_F(bundle_cache_test, a_file_is_read_once_and_served_again_from_memory) {
  const auto expected = write("expected.arbb", {1, 2, 3});
  const auto actual = write("actual.arbb", {1, 2, 3});
  bundle_cache cache(1 << 20);
  EXPECT_TRUE(arbiter::verify::compare_files(expected, actual, k_tol, cache).ok);
  EXPECT_TRUE(arbiter::verify::compare_files(expected, m_dir / "." / "actual.arbb", k_tol, cache).ok);
  const auto stats = cache.stats();
  EXPECT_EQ(stats.reads, 2);
  EXPECT_EQ(stats.reused, 2);
  EXPECT_EQ(stats.bytes_read, 24u);
  EXPECT_EQ(cache.read(expected)->at(0).at(2), 3.0);
}

TEST_F(bundle_cache_test, the_least_recently_used_file_leaves_first_when_the_budget_is_full) {
  const auto a = write("a.arbb", {1, 2}); // 8 bytes each
  const auto b = write("b.arbb", {3, 4});
  const auto c = write("c.arbb", {5, 6});
  bundle_cache cache(16);
  cache.read(a);
  cache.read(b);
  cache.read(a); // a is now the most recent
  cache.read(c); // b leaves
  cache.read(a);
  cache.read(b);
  const auto stats = cache.stats();
  EXPECT_EQ(stats.reads, 4); // a, b, c, then b again
  EXPECT_EQ(stats.reused, 2);
}

TEST_F(bundle_cache_test, a_zero_budget_reads_every_time_and_a_failed_read_is_not_remembered) {
  const auto a = write("a.arbb", {1});
  bundle_cache none(0);
  none.read(a);
  none.read(a);
  EXPECT_EQ(none.stats().reads, 2);
  bundle_cache cache(1 << 20);
  EXPECT_THROW(cache.read(m_dir / "late.arbb"), arbiter::io_error);
  write("late.arbb", {7});
  EXPECT_EQ(cache.read(m_dir / "late.arbb")->at(0).at(0), 7.0);
}

TEST_F(bundle_cache_test, a_missing_candidate_file_is_a_failed_check_and_a_missing_expected_file_throws) {
  const auto expected = write("expected.arbb", {1});
  bundle_cache cache(1 << 20);
  const auto c = arbiter::verify::compare_files(expected, m_dir / "none.arbb", k_tol, cache);
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.reason.find("no readable output"), std::string::npos);
  EXPECT_THROW(arbiter::verify::compare_files(m_dir / "none.arbb", expected, k_tol, cache), arbiter::io_error);
}

TEST(bundle_cache_budget, the_environment_sets_it_in_mib_and_rejects_other_text) {
  ::setenv("ARBITER_JUDGE_CACHE_MB", "3", 1);
  EXPECT_EQ(arbiter::verify::default_cache_budget(), 3u << 20);
  ::setenv("ARBITER_JUDGE_CACHE_MB", "3GB", 1);
  EXPECT_THROW(arbiter::verify::default_cache_budget(), arbiter::config_error);
  ::unsetenv("ARBITER_JUDGE_CACHE_MB");
  EXPECT_GT(arbiter::verify::default_cache_budget(), 0u);
}
