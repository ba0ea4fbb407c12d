#pragma once
#include <cstdint>
#include <vector>

namespace arbiter::verify::detail {

/// Element size in bytes of an arb_dtype; 0 for an unknown code.
std::size_t element_size(int dtype);
/// Widens raw little-endian elements of dtype to double (half, bfloat16 and float8 included).
std::vector<double> widen(int dtype, const unsigned char* bytes, std::size_t count);

} // namespace arbiter::verify::detail
