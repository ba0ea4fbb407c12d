#pragma once
/// The on-disk layout of a tensor bundle (.arbb, docs/protocol.md) shared by the writer and the
/// reader: the fixed headers, the dtype sizes and the validation of one value's description.
#include <bit>
#include <cstdint>
#include <string>

namespace arbiter::runtime {

// The format is little-endian and values are written from host memory as they are.
static_assert(std::endian::native == std::endian::little, "bundles assume a little-endian host");

inline constexpr char k_bundle_magic[8] = {'A', 'R', 'B', 'B', '0', '0', '0', '1'};
inline constexpr uint64_t k_bundle_header_bytes = 16; // magic, count, reserved
inline constexpr uint64_t k_value_header_bytes = 16;  // kind, dtype, ndim, reserved
inline constexpr int32_t k_max_ndim = 8;

/// One value's description as stored before its data.
struct value_info {
  int32_t kind = 0;
  int32_t dtype = 0;
  int32_t ndim = 0;
  int64_t shape[k_max_ndim] = {};
  uint64_t nbytes = 0;
};

/// Bytes per element of an arb_dtype code, or 0 for an unknown code.
uint64_t dtype_size(int32_t dtype) noexcept;

/// Checks kind, dtype, ndim, shape and nbytes against each other (tensors: nbytes = numel ×
/// element size; scalars: ndim 0 and the dtype of their Python type; None: no data). Returns ""
/// when consistent, else what is wrong, for the caller to prefix with the file name.
std::string validate_value(const value_info& info);

/// Bytes the value occupies in the file: header, shape and nbytes field, then data.
uint64_t value_record_bytes(const value_info& info) noexcept;

} // namespace arbiter::runtime
