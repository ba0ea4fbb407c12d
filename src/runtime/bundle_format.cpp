#include "bundle_format.hpp"

#include "arbiter/runtime/arbiter_runtime.h"

namespace arbiter::runtime {

uint64_t dtype_size(int32_t dtype) noexcept { return arb_dtype_size(dtype); }

namespace {

std::string validate_tensor(const value_info& info) {
  if (info.ndim < 0 || info.ndim > k_max_ndim) return "ndim " + std::to_string(info.ndim) + " outside [0, 8]";
  uint64_t bytes = dtype_size(info.dtype);
  for (int32_t dim_idx = 0; dim_idx < info.ndim; ++dim_idx) {
    if (info.shape[dim_idx] < 0) return "negative extent in dimension " + std::to_string(dim_idx);
    // A corrupt header must not wrap around into a small, plausible byte count.
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(info.shape[dim_idx]), &bytes))
      return "shape overflows 64-bit byte count";
  }
  if (bytes != info.nbytes) return "nbytes " + std::to_string(info.nbytes) + " != numel x element size " + std::to_string(bytes);
  return "";
}

int32_t scalar_dtype(int32_t kind) noexcept {
  switch (kind) {
  case ARB_KIND_INT:
    return ARB_I64;
  case ARB_KIND_FLOAT:
    return ARB_F64;
  default:
    return ARB_BOOL;
  }
}

} // namespace

std::string validate_value(const value_info& info) {
  if (info.kind < ARB_KIND_TENSOR || info.kind > ARB_KIND_NONE) return "unknown kind " + std::to_string(info.kind);
  if (dtype_size(info.dtype) == 0) return "unknown dtype " + std::to_string(info.dtype);
  if (info.kind == ARB_KIND_TENSOR) return validate_tensor(info);
  if (info.ndim != 0) return "scalar with ndim " + std::to_string(info.ndim);
  if (info.kind == ARB_KIND_NONE) return info.nbytes == 0 ? "" : "None value with data";
  if (info.dtype != scalar_dtype(info.kind))
    return "scalar kind " + std::to_string(info.kind) + " with dtype " + std::to_string(info.dtype);
  if (info.nbytes != dtype_size(info.dtype)) return "scalar with nbytes " + std::to_string(info.nbytes);
  return "";
}

uint64_t value_record_bytes(const value_info& info) noexcept {
  return k_value_header_bytes + 8 * static_cast<uint64_t>(info.ndim) + 8 + info.nbytes;
}

} // namespace arbiter::runtime
