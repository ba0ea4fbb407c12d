// What is left of an evaluation's and a reference's folders once judged (detail/prune.hpp).
#include "detail/prune.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using namespace arbiter::pipeline;

TEST(prune, large_bundles_go_small_ones_and_other_files_stay_and_a_pruned_reference_is_made_again) {
  const fs::path root = fs::temp_directory_path() / ("arbiter_prune_" + std::to_string(::getpid()));
  fs::remove_all(root);
  const auto write = [](const fs::path& file, std::uintmax_t size) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << std::string(size, 'x');
  };
  write(root / "eval/outputs/0/0/outputs.arbb", detail::k_prune_bundle_bytes);
  write(root / "eval/outputs/0/1/outputs.arbb", 1024);
  write(root / "eval/outputs/probe.json", detail::k_prune_bundle_bytes + 1);
  const auto p = detail::prune_bundles(root / "eval");
  EXPECT_EQ(p.files, 1u);
  EXPECT_EQ(p.bytes, detail::k_prune_bundle_bytes);
  EXPECT_FALSE(fs::exists(root / "eval/outputs/0/0/outputs.arbb"));
  EXPECT_TRUE(fs::exists(root / "eval/outputs/0/1/outputs.arbb"));
  EXPECT_TRUE(fs::exists(root / "eval/outputs/probe.json"));
  write(root / "ref/events.jsonl", 10);
  EXPECT_EQ(detail::prune_reference(root / "ref").files, 0u);
  EXPECT_TRUE(fs::exists(root / "ref/events.jsonl")); // nothing pruned: still a complete cache
  write(root / "ref/expected/0/0/outputs.arbb", detail::k_prune_bundle_bytes * 2);
  EXPECT_EQ(detail::prune_reference(root / "ref").files, 1u);
  EXPECT_FALSE(fs::exists(root / "ref/events.jsonl"));
  fs::remove_all(root);
}
