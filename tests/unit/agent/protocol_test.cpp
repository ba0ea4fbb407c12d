#include "arbiter/agent/protocol.hpp"

#include <gtest/gtest.h>

using namespace arbiter::agent;
using json = nlohmann::json;

namespace {

chat_request sample_request() {
  chat_request r;
  r.model = "m";
  r.max_output_tokens = 100;
  r.system = "sys";
  r.messages.push_back({role::user, "task", {}, "", "", false});
  r.messages.push_back({role::assistant, "", {{"c1", "bash", R"({"command":"ls"})"}, {"c2", "nope", "{bad"}}, "", "", false});
  r.messages.push_back({role::tool, "a b", {}, "c1", "bash", false});
  r.messages.push_back({role::tool, "error: unknown tool", {}, "c2", "nope", true});
  r.tools.push_back({"bash", "run", {{"type", "object"}}});
  return r;
}

} // namespace

TEST(protocol, endpoint_urls) {
  EXPECT_EQ(endpoint_url(api_kind::openai, "http://h/v1/"), "http://h/v1/chat/completions");
  EXPECT_EQ(endpoint_url(api_kind::openai, "http://h/v1/chat/completions"), "http://h/v1/chat/completions");
  EXPECT_EQ(endpoint_url(api_kind::anthropic, "https://api.anthropic.com"), "https://api.anthropic.com/v1/messages");
  EXPECT_EQ(endpoint_url(api_kind::anthropic, "http://h/v1"), "http://h/v1/messages");
  EXPECT_THROW(api_from_string("gemini"), arbiter::config_error);
}

TEST(protocol, openai_request_keeps_raw_arguments_and_tool_results) {
  const json body = detail::openai_body(sample_request());
  ASSERT_EQ(body["messages"].size(), 5u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_TRUE(body["messages"][2]["content"].is_null());
  EXPECT_EQ(body["messages"][2]["tool_calls"][1]["function"]["arguments"], "{bad");
  EXPECT_EQ(body["messages"][3]["role"], "tool");
  EXPECT_EQ(body["messages"][3]["tool_call_id"], "c1");
  EXPECT_EQ(body["tools"][0]["function"]["name"], "bash");
}

TEST(protocol, anthropic_request_groups_tool_results_in_one_user_message) {
  const json body = detail::anthropic_body(sample_request());
  EXPECT_EQ(body["system"], "sys");
  ASSERT_EQ(body["messages"].size(), 3u);
  EXPECT_EQ(body["messages"][1]["content"][0]["type"], "tool_use");
  EXPECT_EQ(body["messages"][1]["content"][0]["input"]["command"], "ls");
  EXPECT_TRUE(body["messages"][1]["content"][1]["input"].is_object()); // bad JSON becomes {}
  EXPECT_EQ(body["messages"][2]["role"], "user");
  ASSERT_EQ(body["messages"][2]["content"].size(), 2u);
  EXPECT_EQ(body["messages"][2]["content"][1]["is_error"], true);
  EXPECT_EQ(body["tools"][0]["input_schema"]["type"], "object");
}

TEST(protocol, openai_reply_with_tool_calls_and_cached_usage) {
  const std::string body = R"({"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[
      {"id":"x","type":"function","function":{"name":"bash","arguments":"{\"command\":\"check\"}"}}]},
      "finish_reason":"tool_calls"}],"usage":{"prompt_tokens":100,"completion_tokens":7,
      "prompt_tokens_details":{"cached_tokens":60}}})";
  const model_reply r = decode_reply(api_kind::openai, body);
  ASSERT_EQ(r.reply.calls.size(), 1u);
  EXPECT_EQ(r.reply.calls[0].arguments, R"({"command":"check"})");
  EXPECT_EQ(r.usage.input, 40);
  EXPECT_EQ(r.usage.cache_read, 60);
  EXPECT_EQ(r.usage.output, 7);
  EXPECT_EQ(r.finish, "tool_calls");
}

TEST(protocol, anthropic_reply_text_and_tool_use) {
  const std::string body = R"({"type":"message","content":[{"type":"text","text":"hi"},
      {"type":"tool_use","id":"t1","name":"write_file","input":{"path":"a","content":"b"}}],"stop_reason":"tool_use",
      "usage":{"input_tokens":5,"output_tokens":6,"cache_read_input_tokens":7,"cache_creation_input_tokens":8}})";
  const model_reply r = decode_reply(api_kind::anthropic, body);
  EXPECT_EQ(r.reply.text, "hi");
  ASSERT_EQ(r.reply.calls.size(), 1u);
  EXPECT_EQ(json::parse(r.reply.calls[0].arguments)["path"], "a");
  EXPECT_EQ(r.usage.total(), 26);
  EXPECT_EQ(r.usage.cache_write, 8);
}

TEST(protocol, malformed_replies_throw_protocol_error) {
  EXPECT_THROW(decode_reply(api_kind::openai, "<html>"), protocol_error);
  EXPECT_THROW(decode_reply(api_kind::openai, R"({"choices":[]})"), protocol_error);
  EXPECT_THROW(decode_reply(api_kind::anthropic, R"({"type":"error","error":{"type":"overloaded_error"}})"), protocol_error);
  EXPECT_THROW(decode_reply(api_kind::anthropic, R"({"content":"text"})"), protocol_error);
}
