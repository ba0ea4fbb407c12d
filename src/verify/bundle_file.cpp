#include "arbiter/common/error.hpp"
#include "arbiter/runtime/arbiter_runtime.h"
#include "arbiter/verify/compare.hpp"
#include "detail/decode.hpp"

#include <array>
#include <memory>

namespace arbiter::verify {

namespace {

using reader_ptr = std::unique_ptr<arb_reader, void (*)(arb_reader*)>;

value read_value(arb_reader* reader, std::int64_t value_idx, const std::filesystem::path& file) {
  std::int32_t kind = 0, dtype = 0, ndim = 0;
  std::array<std::int64_t, ARB_MAX_NDIM> shape{};
  std::uint64_t nbytes = 0;
  if (arb_reader_info(reader, value_idx, &kind, &dtype, &ndim, shape.data(), &nbytes) != ARB_OK)
    ARB_THROW(io_error, file.string() + ": " + arb_last_error());
  value v;
  v.kind = kind;
  v.dtype = dtype;
  v.shape.assign(shape.begin(), shape.begin() + ndim);
  v.bytes.resize(nbytes);
  if (nbytes > 0 && arb_reader_copy(reader, value_idx, v.bytes.data(), nbytes) != ARB_OK)
    ARB_THROW(io_error, file.string() + ": " + arb_last_error());
  if (detail::element_size(dtype) == 0)
    ARB_THROW(io_error,
              file.string() + ": value " + std::to_string(value_idx) + " has unknown dtype code " + std::to_string(dtype));
  return v;
}

} // namespace

std::vector<value> read_bundle(const std::filesystem::path& file) {
  arb_reader* raw = nullptr;
  if (arb_reader_open(file.c_str(), &raw) != ARB_OK) ARB_THROW(io_error, file.string() + ": " + arb_last_error());
  reader_ptr reader(raw, arb_reader_close);
  std::vector<value> values;
  const std::int64_t count = arb_reader_count(reader.get());
  for (std::int64_t value_idx = 0; value_idx < count; ++value_idx) values.push_back(read_value(reader.get(), value_idx, file));
  return values;
}

std::size_t value::numel() const {
  const std::size_t size = detail::element_size(dtype);
  return size == 0 ? 0 : bytes.size() / size;
}

double value::at(std::size_t element_idx) const {
  return detail::element(dtype, bytes.data() + element_idx * detail::element_size(dtype));
}

std::string dtype_name(int dtype) {
  static constexpr std::array<const char*, 12> k_names{"float32", "float64", "float16",       "bfloat16",
                                                       "int8",    "uint8",   "int16",         "int32",
                                                       "int64",   "bool",    "float8_e4m3fn", "float8_e5m2"};
  if (dtype < 0 || dtype >= static_cast<int>(k_names.size())) return "dtype#" + std::to_string(dtype);
  return k_names[static_cast<std::size_t>(dtype)];
}

} // namespace arbiter::verify
