#include "arbiter/common/verdict.hpp"

#include <array>
#include <utility>

namespace arbiter {

namespace {
constexpr std::array<std::pair<verdict, std::string_view>, 8> k_names{{
    {verdict::passed, "passed"},
    {verdict::incorrect, "incorrect"},
    {verdict::compile_error, "compile_error"},
    {verdict::runtime_error, "runtime_error"},
    {verdict::timeout, "timeout"},
    {verdict::rejected, "rejected"},
    {verdict::crashed, "crashed"},
    {verdict::skipped, "skipped"},
}};
} // namespace

std::string_view to_string(verdict v) {
  for (const auto& [value, name] : k_names)
    if (value == v) return name;
  return "unknown";
}

std::optional<verdict> verdict_from_string(std::string_view name) {
  for (const auto& [value, text] : k_names)
    if (text == name) return value;
  return std::nullopt;
}

} // namespace arbiter
