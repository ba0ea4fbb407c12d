// OpenAI-compatible chat completions: tools as "function" entries, tool calls with their arguments
// as a JSON string, tool results as role "tool" messages.
#include "arbiter/agent/protocol.hpp"

namespace arbiter::agent::detail {

namespace {

using json = nlohmann::json;

json encode_message(const message& m) {
  if (m.who == role::tool) return {{"role", "tool"}, {"tool_call_id", m.call_id}, {"content", m.text}};
  json out = {{"role", std::string(to_string(m.who))}, {"content", m.text}};
  if (m.who == role::assistant && !m.calls.empty()) {
    if (m.text.empty()) out["content"] = nullptr;
    out["tool_calls"] = json::array();
    for (const auto& call : m.calls)
      out["tool_calls"].push_back(
          {{"id", call.id}, {"type", "function"}, {"function", {{"name", call.name}, {"arguments", call.arguments}}}});
  }
  return out;
}

// Some servers send content as a list of parts; only text parts matter here.
std::string content_text(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (content.is_array())
    for (const auto& part : content)
      if (part.is_object() && part.value("type", "") == "text") text += part.value("text", "");
  return text;
}

tool_call decode_call(const json& call, std::size_t call_idx) {
  if (!call.is_object() || !call.contains("function") || !call["function"].is_object())
    ARB_THROW(protocol_error,
              "choices[0].message.tool_calls[" + std::to_string(call_idx) + "]: expected an object with 'function'");
  const json& function = call["function"];
  tool_call out;
  out.id = call.value("id", "call_" + std::to_string(call_idx));
  out.name = function.value("name", "");
  const json& arguments = function.contains("arguments") ? function["arguments"] : json(nullptr);
  // The protocol says a string; a server that sends the object itself is understood too.
  out.arguments = arguments.is_string() ? arguments.get<std::string>() : arguments.is_null() ? "" : arguments.dump();
  return out;
}

token_usage decode_usage(const json& body) {
  token_usage usage;
  if (!body.contains("usage") || !body["usage"].is_object()) return usage;
  const json& u = body["usage"];
  const std::int64_t prompt = u.value("prompt_tokens", std::int64_t{0});
  std::int64_t cached = 0;
  if (u.contains("prompt_tokens_details") && u["prompt_tokens_details"].is_object())
    cached = u["prompt_tokens_details"].value("cached_tokens", std::int64_t{0});
  usage.cache_read = std::min(cached, prompt);
  usage.input = prompt - usage.cache_read; // prompt_tokens includes the cached part
  usage.output = u.value("completion_tokens", std::int64_t{0});
  return usage;
}

} // namespace

json openai_body(const chat_request& request) {
  json messages = json::array();
  if (!request.system.empty()) messages.push_back({{"role", "system"}, {"content", request.system}});
  for (const auto& m : request.messages) messages.push_back(encode_message(m));
  json tools = json::array();
  for (const auto& t : request.tools)
    tools.push_back(
        {{"type", "function"}, {"function", {{"name", t.name}, {"description", t.description}, {"parameters", t.parameters}}}});
  json body = {{"model", request.model}, {"messages", messages}, {"max_tokens", request.max_output_tokens}};
  if (!tools.empty()) body["tools"] = tools;
  return body;
}

model_reply openai_reply(const json& body) {
  if (body.contains("error")) ARB_THROW(protocol_error, "the endpoint answered an error: " + body["error"].dump().substr(0, 300));
  if (!body.contains("choices") || !body["choices"].is_array() || body["choices"].empty() || !body["choices"][0].is_object())
    ARB_THROW(protocol_error, "reply has no choices[0]");
  const json& choice = body["choices"][0];
  if (!choice.contains("message") || !choice["message"].is_object()) ARB_THROW(protocol_error, "reply has no choices[0].message");
  const json& msg = choice["message"];
  model_reply out;
  out.reply.who = role::assistant;
  out.reply.text = content_text(msg.contains("content") ? msg["content"] : json(nullptr));
  if (msg.contains("tool_calls") && msg["tool_calls"].is_array())
    for (std::size_t call_idx = 0; call_idx < msg["tool_calls"].size(); ++call_idx)
      out.reply.calls.push_back(decode_call(msg["tool_calls"][call_idx], call_idx));
  out.finish =
      choice.contains("finish_reason") && choice["finish_reason"].is_string() ? choice["finish_reason"].get<std::string>() : "";
  out.usage = decode_usage(body);
  return out;
}

} // namespace arbiter::agent::detail
