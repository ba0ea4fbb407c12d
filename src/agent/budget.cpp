#include "arbiter/agent/budget.hpp"

#include <array>
#include <cstdlib>

namespace arbiter::agent {

namespace {

constexpr std::array<std::string_view, 5> k_stop_names{"final_answer", "max_turns", "max_tokens", "max_wall", "model_error"};

double parse_number(std::string_view text, const std::string& what) {
  const std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size() || !(value >= 0))
    ARB_THROW(config_error, what + ": expected a non-negative number, found '" + copy + "'");
  return value;
}

} // namespace

std::string_view to_string(stop_reason reason) { return k_stop_names[static_cast<std::size_t>(reason)]; }

std::optional<stop_reason> stop_reason_from_string(std::string_view name) {
  for (std::size_t idx = 0; idx < k_stop_names.size(); ++idx)
    if (k_stop_names[idx] == name) return static_cast<stop_reason>(idx);
  return std::nullopt;
}

std::optional<stop_reason> budget_exhausted(const budget& limits, const session_progress& progress) {
  if (limits.max_turns > 0 && progress.turns >= limits.max_turns) return stop_reason::max_turns;
  if (limits.max_tokens > 0 && progress.used.total() >= limits.max_tokens) return stop_reason::max_tokens;
  if (limits.max_wall_s > 0 && progress.wall_s >= limits.max_wall_s) return stop_reason::max_wall;
  return std::nullopt;
}

price parse_price(std::string_view text) {
  price out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view entry = text.substr(start, comma - start);
    start = comma + 1;
    const auto equals = entry.find('=');
    if (equals == std::string_view::npos)
      ARB_THROW(config_error, "--price: expected key=value, found '" + std::string(entry) + "'");
    const std::string_view key = entry.substr(0, equals);
    const double value = parse_number(entry.substr(equals + 1), "--price " + std::string(key));
    if (key == "in" || key == "input") out.input = value;
    else if (key == "out" || key == "output") out.output = value;
    else if (key == "cache_read") out.cache_read = value;
    else if (key == "cache_write") out.cache_write = value;
    else ARB_THROW(config_error, "--price: unknown key '" + std::string(key) + "' (expected in, out, cache_read, cache_write)");
  }
  return out;
}

double cost_usd(const token_usage& usage, const price& prices) {
  return (static_cast<double>(usage.input) * prices.input + static_cast<double>(usage.output) * prices.output +
          static_cast<double>(usage.cache_read) * prices.cache_read +
          static_cast<double>(usage.cache_write) * prices.cache_write) /
      1e6;
}

double parse_duration(std::string_view text) {
  if (text.empty()) ARB_THROW(config_error, "duration: empty");
  double total = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t unit = text.find_first_of("smh", start);
    const bool bare = unit == std::string_view::npos;
    if (bare) unit = text.size();
    if (unit == start) ARB_THROW(config_error, "duration '" + std::string(text) + "': expected e.g. 90, 90s, 30m, 1h30m");
    const double value = parse_number(text.substr(start, unit - start), "duration '" + std::string(text) + "'");
    const char suffix = bare ? 's' : text[unit];
    total += value * (suffix == 'h' ? 3600 : suffix == 'm' ? 60 : 1);
    start = unit + 1;
  }
  return total;
}

} // namespace arbiter::agent
