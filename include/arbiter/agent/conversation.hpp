#pragma once
/// The agent's conversation in a form neither API owns: messages, tool calls, token usage.
/// protocol.hpp maps it to and from the OpenAI and Anthropic wire formats; trace.hpp stores it.
#include "arbiter/common/error.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace arbiter::agent {

/// A model endpoint answered something that is not a reply of its protocol.
class protocol_error : public error {
 public:
  using error::error;
};

enum class role : std::uint8_t { user, assistant, tool };

std::string_view to_string(role r);
/// Throws protocol_error for an unknown name.
role role_from_string(std::string_view name);

/// One tool call as the model made it. `arguments` is the raw JSON text, kept as sent even when it
/// does not parse, so that the model is told exactly what was wrong with it.
struct tool_call {
  std::string id;
  std::string name;
  std::string arguments;
};

struct message {
  role who = role::user;
  std::string text;             ///< user / assistant text, or a tool result
  std::vector<tool_call> calls; ///< assistant only
  std::string call_id;          ///< tool only: the call it answers
  std::string tool_name;        ///< tool only
  bool is_error = false;        ///< tool only
};

/// Tokens of one reply (or a sum of them). input excludes cached input: the four are disjoint,
/// so that each has one price.
struct token_usage {
  std::int64_t input = 0;
  std::int64_t output = 0;
  std::int64_t cache_read = 0;
  std::int64_t cache_write = 0;

  std::int64_t total() const { return input + output + cache_read + cache_write; }
  token_usage& operator+=(const token_usage& other);
};

struct model_reply {
  message reply; ///< role assistant
  token_usage usage;
  std::string finish; ///< the API's own stop/finish reason, as sent
};

/// A tool offered to the model: its name, what it does, and a JSON schema of its arguments.
struct tool_spec {
  std::string name;
  std::string description;
  nlohmann::json parameters;
};

nlohmann::json to_json(const token_usage& usage);
/// Missing keys read as 0.
token_usage usage_from_json(const nlohmann::json& value);
nlohmann::json to_json(const tool_call& call);
tool_call tool_call_from_json(const nlohmann::json& value);

} // namespace arbiter::agent
