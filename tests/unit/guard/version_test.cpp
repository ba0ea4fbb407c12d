#include "arbiter/guard/version.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace arbiter::guard {
namespace {

TEST(guard_version, is_sixteen_lowercase_hex_digits) {
  const std::string& version = guard_version();
  ASSERT_EQ(version.size(), 16u);
  EXPECT_TRUE(std::all_of(version.begin(), version.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  })) << version;
  EXPECT_EQ(&guard_version(), &version); // one value for the process
}

} // namespace
} // namespace arbiter::guard
