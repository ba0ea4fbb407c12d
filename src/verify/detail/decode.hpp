#pragma once
/// Element decoding for the comparison: one decoder type per arb_dtype, so that the comparison
/// loop is compiled per dtype and never widens a whole output into a vector of doubles.
#include "arbiter/runtime/arbiter_runtime.h"

#include <cstdint>
#include <cstring>

namespace arbiter::verify::detail {

/// Element size in bytes of an arb_dtype; 0 for an unknown code.
std::size_t element_size(int dtype);
/// One element of dtype at p as a double (half, bfloat16 and float8 included); NaN for an unknown code.
double element(int dtype, const unsigned char* p);
/// float16 and the float8 types; NaN for any other code.
double minifloat_element(int dtype, const unsigned char* p);

template <typename T>
struct plain_decoder {
  static constexpr std::size_t size = sizeof(T);
  double operator()(const unsigned char* p) const {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return static_cast<double>(v);
  }
};

struct bf16_decoder {
  static constexpr std::size_t size = 2;
  double operator()(const unsigned char* p) const {
    std::uint16_t half = 0;
    std::memcpy(&half, p, 2);
    const std::uint32_t bits = static_cast<std::uint32_t>(half) << 16;
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
  }
};

struct bool_decoder {
  static constexpr std::size_t size = 1;
  double operator()(const unsigned char* p) const { return *p != 0 ? 1.0 : 0.0; }
};

/// The minifloats (float16, float8) and unknown codes: rare in outputs, decoded bit by bit.
struct minifloat_decoder {
  int dtype;
  std::size_t size;
  double operator()(const unsigned char* p) const { return minifloat_element(dtype, p); }
};

/// Calls f with the decoder of dtype and returns what it returns.
template <typename F>
auto with_decoder(int dtype, F&& f) {
  switch (dtype) {
  case ARB_F32:
    return f(plain_decoder<float>{});
  case ARB_F64:
    return f(plain_decoder<double>{});
  case ARB_BF16:
    return f(bf16_decoder{});
  case ARB_I8:
    return f(plain_decoder<std::int8_t>{});
  case ARB_U8:
    return f(plain_decoder<std::uint8_t>{});
  case ARB_I16:
    return f(plain_decoder<std::int16_t>{});
  case ARB_I32:
    return f(plain_decoder<std::int32_t>{});
  case ARB_I64:
    return f(plain_decoder<std::int64_t>{});
  case ARB_BOOL:
    return f(bool_decoder{});
  default:
    return f(minifloat_decoder{dtype, element_size(dtype)});
  }
}

} // namespace arbiter::verify::detail
