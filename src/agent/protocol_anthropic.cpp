// Anthropic Messages: the system prompt apart, content as typed blocks, tool calls as tool_use
// blocks with an object input, tool results as tool_result blocks inside a user message.
#include "arbiter/agent/protocol.hpp"

namespace arbiter::agent::detail {

namespace {

using json = nlohmann::json;

json tool_use_input(const std::string& arguments) {
  json input = json::parse(arguments, nullptr, false);
  return input.is_object() ? input : json::object(); // the API accepts only an object here
}

json content_blocks(const message& m) {
  json blocks = json::array();
  if (m.who == role::tool) {
    json result = {{"type", "tool_result"}, {"tool_use_id", m.call_id}, {"content", m.text}};
    if (m.is_error) result["is_error"] = true;
    blocks.push_back(result);
    return blocks;
  }
  if (!m.text.empty()) blocks.push_back({{"type", "text"}, {"text", m.text}});
  for (const auto& call : m.calls)
    blocks.push_back({{"type", "tool_use"}, {"id", call.id}, {"name", call.name}, {"input", tool_use_input(call.arguments)}});
  if (blocks.empty()) blocks.push_back({{"type", "text"}, {"text", "(empty)"}});
  return blocks;
}

// Roles must alternate: consecutive user-side messages (tool results, text) merge into one.
json encode_messages(const std::vector<message>& messages) {
  json out = json::array();
  for (const auto& m : messages) {
    const std::string wire_role = m.who == role::assistant ? "assistant" : "user";
    json blocks = content_blocks(m);
    if (!out.empty() && out.back()["role"] == wire_role) {
      for (auto& block : blocks) out.back()["content"].push_back(std::move(block));
      continue;
    }
    out.push_back({{"role", wire_role}, {"content", std::move(blocks)}});
  }
  return out;
}

token_usage decode_usage(const json& body) {
  token_usage usage;
  if (!body.contains("usage") || !body["usage"].is_object()) return usage;
  const json& u = body["usage"];
  auto count = [&u](const char* key) { return u.contains(key) && u[key].is_number() ? u[key].get<std::int64_t>() : 0; };
  usage.input = count("input_tokens"); // excludes cache reads and writes in this API
  usage.output = count("output_tokens");
  usage.cache_read = count("cache_read_input_tokens");
  usage.cache_write = count("cache_creation_input_tokens");
  return usage;
}

void decode_block(const json& block, std::size_t block_idx, message& reply) {
  if (!block.is_object()) ARB_THROW(protocol_error, "content[" + std::to_string(block_idx) + "]: expected an object");
  const std::string type = block.value("type", "");
  if (type == "text") {
    reply.text += block.value("text", "");
  } else if (type == "tool_use") {
    const json input = block.contains("input") ? block["input"] : json::object();
    reply.calls.push_back({block.value("id", "toolu_" + std::to_string(block_idx)), block.value("name", ""),
                           input.is_string() ? input.get<std::string>() : input.dump()});
  } // thinking and other blocks carry nothing the loop acts on
}

} // namespace

json anthropic_body(const chat_request& request) {
  json tools = json::array();
  for (const auto& t : request.tools)
    tools.push_back({{"name", t.name}, {"description", t.description}, {"input_schema", t.parameters}});
  json body = {
      {"model", request.model}, {"max_tokens", request.max_output_tokens}, {"messages", encode_messages(request.messages)}};
  if (!request.system.empty()) body["system"] = request.system;
  if (!tools.empty()) body["tools"] = tools;
  return body;
}

model_reply anthropic_reply(const json& body) {
  if (body.value("type", "") == "error" || body.contains("error"))
    ARB_THROW(protocol_error, "the endpoint answered an error: " + body.value("error", json::object()).dump().substr(0, 300));
  if (!body.contains("content") || !body["content"].is_array()) ARB_THROW(protocol_error, "reply has no content array");
  model_reply out;
  out.reply.who = role::assistant;
  for (std::size_t block_idx = 0; block_idx < body["content"].size(); ++block_idx)
    decode_block(body["content"][block_idx], block_idx, out.reply);
  out.finish = body.contains("stop_reason") && body["stop_reason"].is_string() ? body["stop_reason"].get<std::string>() : "";
  out.usage = decode_usage(body);
  return out;
}

} // namespace arbiter::agent::detail
