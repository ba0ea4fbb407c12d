#include "arbiter/common/device.hpp"
#include "arbiter/common/error.hpp"
#include "arbiter/common/file.hpp"
#include "arbiter/common/hash.hpp"
#include "arbiter/common/json_number.hpp"
#include "arbiter/common/verdict.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

TEST(verdict, round_trips_every_name) {
  for (auto v :
       {arbiter::verdict::passed, arbiter::verdict::incorrect, arbiter::verdict::compile_error, arbiter::verdict::runtime_error,
        arbiter::verdict::timeout, arbiter::verdict::rejected, arbiter::verdict::crashed, arbiter::verdict::skipped})
    EXPECT_EQ(arbiter::verdict_from_string(arbiter::to_string(v)), v);
  EXPECT_FALSE(arbiter::verdict_from_string("ok").has_value());
}

TEST(error, throw_names_file_and_line) {
  try {
    ARB_THROW(arbiter::config_error, "bad key");
    FAIL();
  } catch (const arbiter::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("common_test.cpp:"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("bad key"), std::string::npos);
  }
}

TEST(error, context_is_prepended_and_type_kept) {
  try {
    try {
      ARB_THROW(arbiter::io_error, "disk");
    } catch (...) {
      arbiter::rethrow_with_context("while loading x");
    }
  } catch (const arbiter::io_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("while loading x: ", 0), 0u);
  }
}

TEST(hash, sha256_matches_known_digest) {
  EXPECT_EQ(arbiter::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(hash, file_set_digest_changes_with_name_and_content) {
  const fs::path root = fs::temp_directory_path() / "arbiter_hash_test";
  fs::remove_all(root);
  fs::create_directories(root / "sub");
  std::ofstream(root / "a.py") << "x = 1\n";
  std::ofstream(root / "sub" / "b.cu") << "// k\n";
  std::ofstream(root / ".hidden") << "ignored";
  const auto files = arbiter::list_files(root);
  ASSERT_EQ(files.size(), 2u);
  const std::string first = arbiter::hash_files(root, files);
  std::ofstream(root / "a.py") << "x = 2\n";
  EXPECT_NE(arbiter::hash_files(root, files), first);
  fs::remove_all(root);
}

TEST(file, reads_whole_files_and_names_the_missing_one) {
  const auto file = std::filesystem::temp_directory_path() / "arbiter_common_file.bin";
  {
    std::ofstream out(file, std::ios::binary);
    out << std::string("a\0b\nc", 5);
  }
  EXPECT_EQ(arbiter::read_file(file), std::string("a\0b\nc", 5));
  EXPECT_EQ(arbiter::try_read_file(file).value_or(""), std::string("a\0b\nc", 5));
  std::filesystem::remove(file);
  EXPECT_FALSE(arbiter::try_read_file(file).has_value());
  try {
    arbiter::read_file(file);
    FAIL() << "expected io_error";
  } catch (const arbiter::io_error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
}

TEST(json_number, an_optional_number_goes_out_as_null_and_comes_back_as_none) {
  EXPECT_EQ(arbiter::optional_number(1.5), nlohmann::json(1.5));
  EXPECT_TRUE(arbiter::optional_number(std::nullopt).is_null());
  EXPECT_TRUE(arbiter::optional_number<nlohmann::ordered_json>(std::nullopt).is_null());
  const auto doc = nlohmann::ordered_json::parse(R"({"ms": 0.25, "n": 3, "none": null, "text": "1.0"})");
  EXPECT_EQ(arbiter::number_at(doc, "ms"), 0.25);
  EXPECT_EQ(arbiter::number_at(doc, "n"), 3.0);
  for (const char* key : {"none", "text", "missing"}) EXPECT_FALSE(arbiter::number_at(doc, key)) << key;
}

TEST(device, only_cpu_and_cuda_are_devices_and_a_bad_one_names_where_it_came_from) {
  EXPECT_TRUE(arbiter::is_device("cpu"));
  EXPECT_TRUE(arbiter::is_device("cuda"));
  EXPECT_FALSE(arbiter::is_device("gpu"));
  EXPECT_EQ(arbiter::require_device("cuda", "--device"), "cuda");
  try {
    arbiter::require_device("rocm", "suite/p/problem.toml: key 'shapes.devices'");
    FAIL() << "rocm accepted";
  } catch (const arbiter::config_error& e) {
    EXPECT_NE(
        std::string(e.what()).find("suite/p/problem.toml: key 'shapes.devices': expected \"cpu\" or \"cuda\", found \"rocm\""),
        std::string::npos)
        << e.what();
  }
}
