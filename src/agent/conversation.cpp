#include "arbiter/agent/conversation.hpp"

namespace arbiter::agent {

std::string_view to_string(role r) {
  switch (r) {
  case role::user:
    return "user";
  case role::assistant:
    return "assistant";
  case role::tool:
    return "tool";
  }
  return "user";
}

role role_from_string(std::string_view name) {
  if (name == "user") return role::user;
  if (name == "assistant") return role::assistant;
  if (name == "tool") return role::tool;
  ARB_THROW(protocol_error, "unknown message role '" + std::string(name) + "'");
}

token_usage& token_usage::operator+=(const token_usage& other) {
  input += other.input;
  output += other.output;
  cache_read += other.cache_read;
  cache_write += other.cache_write;
  return *this;
}

nlohmann::json to_json(const token_usage& usage) {
  return {{"input", usage.input},
          {"output", usage.output},
          {"cache_read", usage.cache_read},
          {"cache_write", usage.cache_write},
          {"total", usage.total()}};
}

token_usage usage_from_json(const nlohmann::json& value) {
  token_usage usage;
  if (!value.is_object()) return usage;
  usage.input = value.value("input", std::int64_t{0});
  usage.output = value.value("output", std::int64_t{0});
  usage.cache_read = value.value("cache_read", std::int64_t{0});
  usage.cache_write = value.value("cache_write", std::int64_t{0});
  return usage;
}

nlohmann::json to_json(const tool_call& call) { return {{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}}; }

tool_call tool_call_from_json(const nlohmann::json& value) {
  return {value.value("id", ""), value.value("name", ""), value.value("arguments", "")};
}

} // namespace arbiter::agent
