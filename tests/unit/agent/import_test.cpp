#include "arbiter/agent/import.hpp"

#include <gtest/gtest.h>

#include <fstream>

using namespace arbiter::agent;
namespace fs = std::filesystem;

namespace {

fs::path write_log(const std::string& name, const std::string& text) {
  const fs::path file = fs::temp_directory_path() / (name + std::to_string(::getpid()) + ".jsonl");
  std::ofstream(file) << text;
  return file;
}

} // namespace

TEST(import, claude_code_result_record_wins_and_turns_deduplicate) {
  const fs::path log = write_log("cc", R"({"type":"system","subtype":"init","model":"claude-x"}
{"type":"assistant","message":{"id":"m1","usage":{"input_tokens":10,"output_tokens":1,"cache_read_input_tokens":100,"cache_creation_input_tokens":50}}}
{"type":"assistant","message":{"id":"m1","usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":50}}}
{"type":"user","message":{"content":[]}}
{"type":"assistant","message":{"id":"m2","usage":{"input_tokens":3,"output_tokens":4,"cache_read_input_tokens":200,"cache_creation_input_tokens":0}}}
{"type":"result","subtype":"success","duration_ms":12500,"num_turns":2,"total_cost_usd":0.25,"usage":{"input_tokens":13,"output_tokens":9,"cache_read_input_tokens":300,"cache_creation_input_tokens":50}}
)");
  const log_summary s = read_harness_log(log_format::claude_code, log);
  EXPECT_EQ(s.model, "claude-x");
  ASSERT_EQ(s.per_turn.size(), 2u);
  EXPECT_EQ(s.per_turn[0].output, 5);
  EXPECT_EQ(s.total.total(), 13 + 9 + 300 + 50);
  EXPECT_EQ(s.turns, 2);
  ASSERT_TRUE(s.wall_s && s.cost_usd);
  EXPECT_DOUBLE_EQ(*s.wall_s, 12.5);
  EXPECT_DOUBLE_EQ(*s.cost_usd, 0.25);
  fs::remove(log);
}

TEST(import, codex_turns_subtract_cached_input) {
  const fs::path log = write_log("codex", R"({"type":"thread.started","thread_id":"t"}
{"type":"turn.started"}
{"type":"item.completed","item":{"type":"agent_message","text":"done"}}
{"type":"turn.completed","usage":{"input_tokens":1000,"cached_input_tokens":800,"output_tokens":50}}
{"type":"turn.completed","usage":{"input_tokens":500,"cached_input_tokens":0,"output_tokens":5}}
)");
  const log_summary s = read_harness_log(log_format::codex, log);
  ASSERT_EQ(s.per_turn.size(), 2u);
  EXPECT_EQ(s.total.input, 700);
  EXPECT_EQ(s.total.cache_read, 800);
  EXPECT_EQ(s.total.output, 55);
  EXPECT_FALSE(s.cost_usd);
  fs::remove(log);
}

TEST(import, codex_legacy_token_count_totals) {
  const fs::path log = write_log(
      "codex_old",
      R"({"id":"0","msg":{"type":"token_count","info":{"total_token_usage":{"input_tokens":100,"cached_input_tokens":10,"output_tokens":5},"last_token_usage":{"input_tokens":100,"cached_input_tokens":10,"output_tokens":5}}}}
{"id":"1","msg":{"type":"token_count","info":{"total_token_usage":{"input_tokens":300,"cached_input_tokens":110,"output_tokens":25},"last_token_usage":{"input_tokens":200,"cached_input_tokens":100,"output_tokens":20}}}}
)");
  const log_summary s = read_harness_log(log_format::codex, log);
  EXPECT_EQ(s.total.input, 190);
  EXPECT_EQ(s.total.cache_read, 110);
  EXPECT_EQ(s.turns, 2);
  fs::remove(log);
}

TEST(import, a_log_without_usage_is_a_config_error) {
  const fs::path log = write_log("empty", "{\"type\":\"user\"}\nnot json\n");
  EXPECT_THROW(read_harness_log(log_format::claude_code, log), arbiter::config_error);
  EXPECT_THROW(read_harness_log(log_format::codex, log), arbiter::config_error);
  EXPECT_THROW(log_format_from_string("aider"), arbiter::config_error);
  fs::remove(log);
}
