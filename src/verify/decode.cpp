#include "detail/decode.hpp"

#include "arbiter/runtime/arbiter_runtime.h"

#include <cmath>
#include <limits>

namespace arbiter::verify::detail {

namespace {

template <typename T>
T load(const unsigned char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

// IEEE-style minifloat with the given exponent and mantissa widths.
double minifloat(std::uint32_t bits, int exp_bits, int man_bits, bool has_inf) {
  const std::uint32_t sign = bits >> (exp_bits + man_bits);
  const std::uint32_t exp = (bits >> man_bits) & ((1u << exp_bits) - 1);
  const std::uint32_t man = bits & ((1u << man_bits) - 1);
  const int bias = (1 << (exp_bits - 1)) - 1;
  const double s = sign ? -1.0 : 1.0;
  const std::uint32_t exp_max = (1u << exp_bits) - 1;
  if (exp == exp_max && has_inf)
    return man == 0 ? s * std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  // float8_e4m3fn: no infinities; only S.1111.111 is NaN.
  if (!has_inf && exp == exp_max && man == (1u << man_bits) - 1) return std::numeric_limits<double>::quiet_NaN();
  if (exp == 0) return s * std::ldexp(static_cast<double>(man), 1 - bias - man_bits);
  return s * std::ldexp(static_cast<double>(man | (1u << man_bits)), static_cast<int>(exp) - bias - man_bits);
}

} // namespace

double minifloat_element(int dtype, const unsigned char* p) {
  switch (dtype) {
  case ARB_F16:
    return minifloat(load<std::uint16_t>(p), 5, 10, true);
  case ARB_F8E4M3:
    return minifloat(*p, 4, 3, false);
  case ARB_F8E5M2:
    return minifloat(*p, 5, 2, true);
  default:
    return std::numeric_limits<double>::quiet_NaN();
  }
}

double element(int dtype, const unsigned char* p) {
  return with_decoder(dtype, [p](const auto& decode) { return decode(p); });
}

std::size_t element_size(int dtype) { return static_cast<std::size_t>(arb_dtype_size(dtype)); }

} // namespace arbiter::verify::detail
