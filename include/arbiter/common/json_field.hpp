#pragma once
/// Members of JSON that another process wrote (a runner's records, the probe's evidence, the static
/// facts), read without trusting their types: nlohmann's value(key, default) throws where the member
/// holds another type, and its integer conversions of a number out of range are undefined.
#include <nlohmann/json.hpp>

#include <limits>
#include <optional>
#include <string>
#include <utility>

namespace arbiter {

/// The string at key; fallback where the object has no such member (or is no object) or the member
/// holds anything else.
template <class Json>
std::string string_or(const Json& object, const char* key, const std::string& fallback = "") {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->template get<std::string>() : fallback;
}

/// The number at key as an integer of type T, a fraction cut off as nlohmann's get cuts it; none
/// where the member is missing, holds anything but a number, or one outside T's range.
template <class T, class Json>
std::optional<T> integer_at(const Json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  if (it->is_number_unsigned()) {
    const auto v = it->template get<std::uint64_t>();
    return std::in_range<T>(v) ? std::optional<T>(static_cast<T>(v)) : std::nullopt;
  }
  if (it->is_number_integer()) {
    const auto v = it->template get<std::int64_t>();
    return std::in_range<T>(v) ? std::optional<T>(static_cast<T>(v)) : std::nullopt;
  }
  const double v = it->template get<double>();
  const double low = static_cast<double>(std::numeric_limits<T>::min());
  const double past_high = 2.0 * static_cast<double>(std::numeric_limits<T>::max() / 2 + 1); // 2^bits, exact
  if (!(v >= low && v < past_high)) return std::nullopt;                                     // NaN fails both
  return static_cast<T>(v);
}

/// integer_at, or fallback where there is none.
template <class T, class Json>
T integer_or(const Json& object, const char* key, T fallback) {
  return integer_at<T>(object, key).value_or(fallback);
}

} // namespace arbiter
