#pragma once
/// What a session may spend (turns, tokens, wall time), why it stopped, and what it cost.
#include "arbiter/agent/conversation.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace arbiter::agent {

/// Zero means no limit.
struct budget {
  int max_turns = 40;
  std::int64_t max_tokens = 0; ///< all four kinds of token, summed over the session
  double max_wall_s = 0;       ///< wall time of the session, summed over resumed runs
};

enum class stop_reason : std::uint8_t { final_answer, max_turns, max_tokens, max_wall, model_error };

std::string_view to_string(stop_reason reason);
std::optional<stop_reason> stop_reason_from_string(std::string_view name);

/// Where a session stands before it asks the model for another turn.
struct session_progress {
  int turns = 0;
  token_usage used;
  double wall_s = 0;
};

/// The first limit reached (turns, then tokens, then wall time), or nullopt to go on. Checked
/// before each turn: a turn in flight finishes, its tool calls included.
std::optional<stop_reason> budget_exhausted(const budget& limits, const session_progress& progress);

/// US dollars per million tokens of each kind.
struct price {
  double input = 0, output = 0, cache_read = 0, cache_write = 0;
};

/// "in=3,out=15,cache_read=0.3,cache_write=3.75" (keys in any order, any subset; `input`/`output`
/// also accepted). Throws config_error naming the bad entry.
price parse_price(std::string_view text);

double cost_usd(const token_usage& usage, const price& prices);

/// "90", "90s", "30m", "2h", "1h30m", "1.5h" → seconds. Throws config_error for anything else.
double parse_duration(std::string_view text);

} // namespace arbiter::agent
