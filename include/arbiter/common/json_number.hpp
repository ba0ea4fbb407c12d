#pragma once
/// Optional numbers in and out of JSON, for nlohmann::json and nlohmann::ordered_json alike.
#include <nlohmann/json.hpp>

#include <optional>

namespace arbiter {

/// The value, or null where there is none.
template <class Json = nlohmann::json>
Json optional_number(const std::optional<double>& value) {
  return value ? Json(*value) : Json(nullptr);
}

/// The number at key; none where the key is missing or holds anything else (null included).
template <class Json>
std::optional<double> number_at(const Json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->template get<double>();
}

} // namespace arbiter
