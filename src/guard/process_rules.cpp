#include "arbiter/guard/process_rules.hpp"

namespace arbiter::guard {
namespace {

/// Command lines shown in the evidence; the count says how many there were in all.
constexpr std::size_t k_shown_commands = 3;

} // namespace

std::optional<finding> survivor_finding(const std::vector<std::string>& survivors) {
  if (survivors.empty()) return std::nullopt;
  std::string commands;
  for (std::size_t idx = 0; idx < survivors.size() && idx < k_shown_commands; ++idx)
    commands += (idx == 0 ? "" : "; ") + survivors[idx];
  if (survivors.size() > k_shown_commands) commands += "; ...";
  return finding{"H6", severity::reject,
                 "processes outlived the runner: " + std::to_string(survivors.size()) + " (" + commands + ")", "dynamic"};
}

} // namespace arbiter::guard
