#pragma once
/// Compares a candidate's outputs with the reference's, outside the candidate process
/// (docs/design.md §3, Correctness): count, kind, dtype and shape must match exactly; then bitwise equality
/// or allclose (|actual − expected| ≤ atol + rtol·|expected|); a non-finite value where the
/// reference is finite always fails.
#include "arbiter/catalog/problem.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace arbiter::verify {

/// An allocator whose value-less construction leaves the element uninitialised: a bundle's bytes
/// are overwritten by the read that follows, and zero-filling gigabytes first would be wasted.
template <typename T, typename A = std::allocator<T>>
class default_init_allocator : public A {
  using traits = std::allocator_traits<A>;

 public:
  template <typename U>
  struct rebind {
    using other = default_init_allocator<U, typename traits::template rebind_alloc<U>>;
  };
  using A::A;

  template <typename U>
  void construct(U* ptr) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(ptr)) U;
  }
  template <typename U, typename... Args>
  void construct(U* ptr, Args&&... args) {
    traits::construct(static_cast<A&>(*this), ptr, std::forward<Args>(args)...);
  }
};

using byte_buffer = std::vector<unsigned char, default_init_allocator<unsigned char>>;

/// One value of a bundle: a tensor or a Python scalar, its elements as stored (little-endian).
struct value {
  int kind = 0;  ///< arb_value_kind
  int dtype = 0; ///< arb_dtype
  std::vector<std::int64_t> shape;
  byte_buffer bytes;

  /// Elements held: bytes over the dtype's size (0 for an unknown dtype).
  std::size_t numel() const;
  /// Element element_idx as a double (half, bfloat16 and float8 decoded); NaN for an unknown dtype.
  double at(std::size_t element_idx) const;
};

struct check {
  bool ok = false;
  std::string reason; ///< empty when ok; one line a person can act on otherwise
  std::int64_t numel = 0;
  std::int64_t mismatches = 0;
  std::int64_t nonfinite = 0;
  double max_abs_err = 0;
  double max_rel_err = 0;
};

/// Reads a .arbb bundle. Throws io_error naming the file when it is missing or malformed.
std::vector<value> read_bundle(const std::filesystem::path& file);

check compare_values(const std::vector<value>& expected, const std::vector<value>& actual, const catalog::tolerance& tol);

/// read_bundle on both, then compare_values. A missing or unreadable actual file is a failed
/// check (the candidate's fault), a missing expected file throws (ours).
check compare_files(const std::filesystem::path& expected, const std::filesystem::path& actual, const catalog::tolerance& tol);

/// How far `got` lies from `truth`: the largest |got − truth| and the largest |truth| over the
/// values and elements both have (the float64 precision check, threat S4).
struct deviation {
  double max_abs_err = 0;
  double max_abs_truth = 0;
};
deviation deviation_from(const std::vector<value>& truth, const std::vector<value>& got);

std::string dtype_name(int dtype);

} // namespace arbiter::verify
