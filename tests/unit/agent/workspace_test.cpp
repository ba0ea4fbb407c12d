#include "arbiter/agent/tools.hpp"
#include "arbiter/agent/trace.hpp"
#include "arbiter/agent/workspace.hpp"

#include <gtest/gtest.h>

#include <fstream>

using namespace arbiter::agent;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("arbiter_agent_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

class no_processes final : public arbiter::sandbox::process_runner {
 public:
  arbiter::sandbox::process_result run(const arbiter::sandbox::process_spec&) override {
    ADD_FAILURE() << "no process expected";
    return {};
  }
};

} // namespace

TEST(workspace, confine_rejects_escapes) {
  const fs::path root = scratch("confine");
  EXPECT_EQ(confine(root, "kernel.py"), root / "kernel.py");
  EXPECT_EQ(confine(root, "src/./a.cu"), root / "src/a.cu");
  EXPECT_THROW(confine(root, "../x"), tool_error);
  EXPECT_THROW(confine(root, "a/../../x"), tool_error);
  EXPECT_THROW(confine(root, "/etc/passwd"), tool_error);
  EXPECT_THROW(confine(root, ""), tool_error);
  EXPECT_THROW(confine(root, "."), tool_error);
  fs::create_directory_symlink("/tmp", root / "out");
  EXPECT_THROW(confine(root, "out/x"), tool_error);
  fs::remove_all(root);
}

TEST(workspace, model_folder_names) {
  EXPECT_EQ(model_folder("openai/gpt-4o:latest"), "openai-gpt-4o-latest");
  EXPECT_THROW(model_folder(".."), arbiter::config_error);
}

TEST(tools, write_file_and_malformed_calls_become_results) {
  const fs::path root = scratch("tools");
  const session_paths paths = paths_for(root, "p", "m");
  fs::create_directories(paths.workspace);
  no_processes runner;
  const tool_settings settings;
  auto ok = run_tool({"1", "write_file", R"({"path":"kernel.py","content":"x = 1\n"})"}, paths, settings, runner);
  EXPECT_FALSE(ok.is_error) << ok.content;
  std::ifstream in(paths.workspace / "kernel.py");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "x = 1\n");
  auto bad_json = run_tool({"2", "write_file", R"({"path":)"}, paths, settings, runner);
  EXPECT_TRUE(bad_json.is_error);
  EXPECT_NE(bad_json.content.find("not valid JSON"), std::string::npos);
  auto unknown = run_tool({"3", "python", "{}"}, paths, settings, runner);
  EXPECT_TRUE(unknown.is_error);
  EXPECT_NE(unknown.content.find("unknown tool 'python'"), std::string::npos);
  auto escape = run_tool({"4", "write_file", R"({"path":"../../evil","content":""})"}, paths, settings, runner);
  EXPECT_TRUE(escape.is_error);
  auto missing = run_tool({"5", "bash", R"({"cmd":"ls"})"}, paths, settings, runner);
  EXPECT_TRUE(missing.is_error);
  EXPECT_NE(missing.content.find("'command'"), std::string::npos);
  fs::remove_all(root);
}

TEST(tools, clip_keeps_head_and_tail_and_fixes_utf8) {
  EXPECT_EQ(clip_output("short", 100), "short");
  EXPECT_EQ(clip_output("a\xff"
                        "b",
                        100),
            "a\xEF\xBF\xBD"
            "b");
  const std::string clipped = clip_output(std::string(1000, 'x') + "END", 100);
  EXPECT_LT(clipped.size(), 160u);
  EXPECT_EQ(clipped.substr(clipped.size() - 3), "END");
  EXPECT_NE(clipped.find("bytes cut"), std::string::npos);
}

TEST(trace, resume_state_from_a_torn_trace) {
  const fs::path root = scratch("trace");
  const fs::path file = root / "trace.jsonl";
  {
    trace_writer w(file);
    w.append({{"type", "session"}, {"elapsed_s", 1.0}});
    w.append({{"type", "system"}, {"content", "sys"}});
    w.append({{"type", "user"}, {"content", "task"}});
    w.append({{"type", "assistant"},
              {"turn", 1},
              {"content", ""},
              {"elapsed_s", 5.0},
              {"tool_calls",
               {{{"id", "a"}, {"name", "bash"}, {"arguments", "{}"}}, {{"id", "b"}, {"name", "bash"}, {"arguments", "{}"}}}},
              {"usage", {{"input", 10}, {"output", 2}}}});
    w.append({{"type", "tool_result"}, {"tool_call_id", "a"}, {"content", "ok"}});
  }
  std::ofstream(file, std::ios::app) << R"({"type":"tool_result","tool_call_id":"b","con)";
  const trace_state state = read_trace(file);
  EXPECT_TRUE(state.started);
  EXPECT_EQ(state.system, "sys");
  EXPECT_EQ(state.messages.size(), 3u);
  EXPECT_EQ(state.turns.size(), 1u);
  EXPECT_EQ(state.used.total(), 12);
  EXPECT_DOUBLE_EQ(state.elapsed_s, 5.0);
  ASSERT_EQ(state.pending.size(), 1u);
  EXPECT_EQ(state.pending[0].id, "b");
  EXPECT_FALSE(state.stopped);
  fs::remove_all(root);
}
