#include "arbiter/runtime/arbiter_runtime.h"
#include "arbiter/verify/compare.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

using arbiter::catalog::tolerance;
using arbiter::catalog::tolerance_mode;
using arbiter::verify::value;

namespace {

value f32(std::vector<float> data, std::vector<std::int64_t> shape = {}) {
  value v;
  v.kind = ARB_KIND_TENSOR;
  v.dtype = ARB_F32;
  v.shape = shape.empty() ? std::vector<std::int64_t>{static_cast<std::int64_t>(data.size())} : shape;
  v.bytes.resize(data.size() * 4);
  std::memcpy(v.bytes.data(), data.data(), v.bytes.size());
  return v;
}

const tolerance k_tol{1e-3, 1e-3, tolerance_mode::allclose};

} // namespace

TEST(compare, within_tolerance_passes) {
  const auto result = arbiter::verify::compare_values({f32({1, 2, 3})}, {f32({1.0005f, 2, 3})}, k_tol);
  EXPECT_TRUE(result.ok) << result.reason;
  EXPECT_EQ(result.numel, 3);
  EXPECT_NEAR(result.max_abs_err, 5e-4, 1e-6);
}

TEST(compare, mismatch_reports_count_and_worst_element) {
  const auto result = arbiter::verify::compare_values({f32({1, 2, 3, 4})}, {f32({1, 2.5f, 3, 40})}, k_tol);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.mismatches, 2);
  EXPECT_NE(result.reason.find("2 of 4 elements"), std::string::npos) << result.reason;
  EXPECT_NE(result.reason.find("index 3"), std::string::npos) << result.reason;
}

TEST(compare, nan_or_inf_in_output_fails_even_with_huge_tolerance) {
  const tolerance loose{1e9, 1e9, tolerance_mode::allclose};
  const auto nan = std::numeric_limits<float>::quiet_NaN();
  const auto result = arbiter::verify::compare_values({f32({1, 2})}, {f32({1, nan})}, loose);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.nonfinite, 1);
}

TEST(compare, a_mismatch_share_lets_that_many_elements_through_and_never_a_non_finite_one) {
  std::vector<float> expected(1000, 1.0f), got(1000, 1.0f);
  got[10] = got[500] = 3.0f;
  tolerance share = k_tol;
  share.mismatch_fraction = 2e-3; // two of a thousand
  auto result = arbiter::verify::compare_values({f32(expected)}, {f32(got)}, share);
  EXPECT_TRUE(result.ok) << result.reason;
  EXPECT_EQ(result.mismatches, 2);
  got[900] = 3.0f; // a third is one too many
  result = arbiter::verify::compare_values({f32(expected)}, {f32(got)}, share);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.reason.find("share of elements allowed"), std::string::npos) << result.reason;
  got[900] = 1.0f;
  got[500] = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(arbiter::verify::compare_values({f32(expected)}, {f32(got)}, share).ok);
}

TEST(compare, dtype_shape_and_count_must_match_exactly) {
  value as_f64 = f32({1, 2});
  as_f64.dtype = ARB_F64;
  EXPECT_NE(arbiter::verify::compare_values({f32({1, 2})}, {as_f64}, k_tol).reason.find("dtype float64; expected float32"),
            std::string::npos);
  EXPECT_NE(arbiter::verify::compare_values({f32({1, 2, 3, 4}, {2, 2})}, {f32({1, 2, 3, 4}, {4, 1})}, k_tol)
                .reason.find("shape [4, 1]"),
            std::string::npos);
  EXPECT_NE(
      arbiter::verify::compare_values({f32({1})}, {f32({1}), f32({1})}, k_tol).reason.find("returned 2 value(s); expected 1"),
      std::string::npos);
}

TEST(compare, bitwise_mode_rejects_the_smallest_difference) {
  const tolerance bitwise{0, 0, tolerance_mode::bitwise};
  EXPECT_TRUE(arbiter::verify::compare_values({f32({1, 2})}, {f32({1, 2})}, bitwise).ok);
  EXPECT_FALSE(arbiter::verify::compare_values({f32({1, 2})}, {f32({1, std::nextafter(2.0f, 3.0f)})}, bitwise).ok);
}

TEST(compare, half_types_are_decoded) {
  // bfloat16 0x3F80 = 1.0, float16 0x3C00 = 1.0, float16 0xC000 = -2.0
  value bf;
  bf.kind = ARB_KIND_TENSOR;
  bf.dtype = ARB_BF16;
  bf.shape = {1};
  bf.bytes = {0x80, 0x3F};
  auto read_back = [](value v) {
    const std::filesystem::path file = std::filesystem::temp_directory_path() / "arbiter_verify_half.arbb";
    arb_writer* w = nullptr;
    EXPECT_EQ(arb_writer_open(file.c_str(), &w), ARB_OK);
    EXPECT_EQ(
        arb_writer_add(w, v.kind, v.dtype, static_cast<int32_t>(v.shape.size()), v.shape.data(), v.bytes.data(), v.bytes.size()),
        ARB_OK);
    EXPECT_EQ(arb_writer_close(w), ARB_OK);
    auto values = arbiter::verify::read_bundle(file);
    std::filesystem::remove(file);
    return values;
  };
  auto bf_values = read_back(bf);
  ASSERT_EQ(bf_values.size(), 1u);
  EXPECT_DOUBLE_EQ(bf_values[0].at(0), 1.0);
  value half = bf;
  half.dtype = ARB_F16;
  half.shape = {2};
  half.bytes = {0x00, 0x3C, 0x00, 0xC0};
  auto half_values = read_back(half);
  EXPECT_DOUBLE_EQ(half_values[0].at(0), 1.0);
  EXPECT_DOUBLE_EQ(half_values[0].at(1), -2.0);
}

TEST(compare, missing_candidate_output_is_a_failed_check_not_an_exception) {
  const std::filesystem::path expected = std::filesystem::temp_directory_path() / "arbiter_verify_expected.arbb";
  arb_writer* w = nullptr;
  const float one = 1.0f;
  const std::int64_t shape[1] = {1};
  ASSERT_EQ(arb_writer_open(expected.c_str(), &w), ARB_OK);
  ASSERT_EQ(arb_writer_add(w, ARB_KIND_TENSOR, ARB_F32, 1, shape, &one, 4), ARB_OK);
  ASSERT_EQ(arb_writer_close(w), ARB_OK);
  const auto result = arbiter::verify::compare_files(expected, "/nonexistent/outputs.arbb", k_tol);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.reason.find("no readable output"), std::string::npos);
  std::filesystem::remove(expected);
}

TEST(compare, a_large_output_is_compared_in_chunks_and_reports_the_worst_element) {
  // Large enough for several chunks on a multi-core machine; two equal worst excesses far apart:
  // the earlier one is reported, as a single pass would.
  std::vector<float> want(5'000'000, 1.0f);
  std::vector<float> got = want;
  got[10] = 1.5f;
  got[4'000'000] = 3.0f;
  got[4'900'000] = 3.0f;
  got[4'999'999] = std::numeric_limits<float>::infinity();
  const auto result = arbiter::verify::compare_values({f32(want)}, {f32(got)}, k_tol);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.numel, 5'000'000);
  EXPECT_EQ(result.mismatches, 4);
  EXPECT_EQ(result.nonfinite, 1);
  EXPECT_NEAR(result.max_abs_err, 2.0, 1e-9);
  EXPECT_NE(result.reason.find("worst at index 4000000: got 3, expected 1"), std::string::npos) << result.reason;
}

TEST(compare, deviation_from_a_float64_truth_spans_dtypes) {
  value truth;
  truth.kind = ARB_KIND_TENSOR;
  truth.dtype = ARB_F64;
  truth.shape = {3};
  const double t[3] = {1.0, -4.0, 2.0};
  truth.bytes.resize(sizeof t);
  std::memcpy(truth.bytes.data(), t, sizeof t);
  const auto d = arbiter::verify::deviation_from({truth}, {f32({1.0f, -4.5f, 2.0f})});
  EXPECT_DOUBLE_EQ(d.max_abs_err, 0.5);
  EXPECT_DOUBLE_EQ(d.max_abs_truth, 4.0);
}
