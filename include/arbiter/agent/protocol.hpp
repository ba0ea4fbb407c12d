#pragma once
/// The two wire protocols the agent speaks: OpenAI-compatible chat completions with tool calling,
/// and Anthropic Messages. Pure functions over JSON text; the HTTP exchange is in http.hpp.
#include "arbiter/agent/conversation.hpp"
#include "arbiter/agent/http.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace arbiter::agent {

enum class api_kind : std::uint8_t { openai, anthropic };

std::string_view to_string(api_kind api);
/// "openai" or "anthropic"; throws config_error for anything else.
api_kind api_from_string(std::string_view name);

/// The full URL for an endpoint: an OpenAI base URL gets /chat/completions appended, an Anthropic
/// one /v1/messages (or /messages when it already ends in /v1); a URL that already names the
/// route is kept.
std::string endpoint_url(api_kind api, std::string endpoint);

struct chat_request {
  std::string model;
  int max_output_tokens = 8192;
  std::string system;
  std::vector<message> messages; ///< user, assistant and tool messages in order
  std::vector<tool_spec> tools;
};

/// Builds the HTTP request: URL, headers (auth only when api_key is non-empty) and JSON body.
http_request encode_request(api_kind api, const std::string& endpoint, const std::string& api_key, const chat_request& request);

/// The reply in a response body. Throws protocol_error naming what is missing or malformed.
model_reply decode_reply(api_kind api, std::string_view body);

namespace detail {
nlohmann::json openai_body(const chat_request& request);
model_reply openai_reply(const nlohmann::json& body);
nlohmann::json anthropic_body(const chat_request& request);
model_reply anthropic_reply(const nlohmann::json& body);
} // namespace detail

} // namespace arbiter::agent
