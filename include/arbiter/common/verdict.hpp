#pragma once
/// The outcome of one evaluation. Stored as its string name.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace arbiter {

enum class verdict : std::uint8_t {
  passed,
  incorrect,
  compile_error,
  runtime_error,
  timeout,
  rejected,
  crashed,
  skipped,
};

std::string_view to_string(verdict v);
/// nullopt for a name that is not a verdict.
std::optional<verdict> verdict_from_string(std::string_view name);

/// A verdict and the one-line reason a person can act on.
struct outcome {
  verdict v = verdict::crashed;
  std::string reason;
};

} // namespace arbiter
