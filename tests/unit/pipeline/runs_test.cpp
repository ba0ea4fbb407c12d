#include "detail/runs.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace fs = std::filesystem;
using namespace arbiter::pipeline::detail;

namespace {

std::string contents(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

// The sealed sets are the reference's, handed to every evaluation of the problem: a candidate that
// writes into its own (reopening a descriptor for writing) must not change what the next one gets.
TEST(runs, sealed_sets_are_handed_over_as_copies_a_candidate_cannot_write_through) {
  const fs::path root = fs::temp_directory_path() / ("arbiter_runs_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "ref/sealed/0/1");
  std::ofstream(root / "ref/sealed/0/1/mutation.arbb") << "reference set";
  hand_over_sealed(root / "ref/sealed", root / "eval/sealed");
  ASSERT_EQ(contents(root / "eval/sealed/0/1/mutation.arbb"), "reference set");
  std::ofstream(root / "eval/sealed/0/1/mutation.arbb", std::ios::trunc) << "forged";
  EXPECT_EQ(contents(root / "ref/sealed/0/1/mutation.arbb"), "reference set");
  hand_over_sealed(root / "ref/nothing", root / "eval2/sealed"); // a problem without guard sets
  EXPECT_FALSE(fs::exists(root / "eval2/sealed"));
  fs::remove_all(root);
}
