#include "arbiter/agent/protocol.hpp"

namespace arbiter::agent {

namespace {

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

std::string_view to_string(api_kind api) { return api == api_kind::openai ? "openai" : "anthropic"; }

api_kind api_from_string(std::string_view name) {
  if (name == "openai") return api_kind::openai;
  if (name == "anthropic") return api_kind::anthropic;
  ARB_THROW(config_error, "--api: expected openai or anthropic, found '" + std::string(name) + "'");
}

std::string endpoint_url(api_kind api, std::string endpoint) {
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  if (endpoint.empty()) ARB_THROW(config_error, "--endpoint: empty URL");
  if (api == api_kind::openai) return ends_with(endpoint, "/chat/completions") ? endpoint : endpoint + "/chat/completions";
  if (ends_with(endpoint, "/messages")) return endpoint;
  return ends_with(endpoint, "/v1") ? endpoint + "/messages" : endpoint + "/v1/messages";
}

http_request encode_request(api_kind api, const std::string& endpoint, const std::string& api_key, const chat_request& request) {
  http_request out;
  out.url = endpoint_url(api, endpoint);
  out.headers.emplace_back("Content-Type", "application/json");
  if (api == api_kind::openai) {
    if (!api_key.empty()) out.headers.emplace_back("Authorization", "Bearer " + api_key);
    out.body = detail::openai_body(request).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } else {
    if (!api_key.empty()) out.headers.emplace_back("x-api-key", api_key);
    out.headers.emplace_back("anthropic-version", "2023-06-01");
    out.body = detail::anthropic_body(request).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return out;
}

model_reply decode_reply(api_kind api, std::string_view body) {
  const nlohmann::json parsed = nlohmann::json::parse(body, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    const std::string head(body.substr(0, 200));
    ARB_THROW(protocol_error,
              "the " + std::string(to_string(api)) + " endpoint answered something that is not a JSON object: " + head);
  }
  return api == api_kind::openai ? detail::openai_reply(parsed) : detail::anthropic_reply(parsed);
}

} // namespace arbiter::agent
