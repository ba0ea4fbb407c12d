#pragma once
/// The two tools a model gets: `bash` (a command in the workspace, through the sandbox's process
/// runner: time limit, minimal environment, output truncated) and `write_file` (a file inside the
/// workspace). Whatever a call does wrong comes back to the model as an error result.
#include "arbiter/agent/conversation.hpp"
#include "arbiter/agent/workspace.hpp"
#include "arbiter/sandbox/process.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace arbiter::agent {

struct tool_settings {
  double bash_timeout_s = 600;             ///< per command; `check` runs inside it
  std::size_t max_output_bytes = 16 << 10; ///< what the model sees: head and tail kept
  std::size_t max_file_bytes = 4 << 20;    ///< write_file's content
  /// Run bash in its own user and mount namespace where the out root is hidden except this
  /// session's workspace and tools (other sessions' and models' work cannot be seen).
  bool isolate = true;
  std::string python = "/usr/bin/python3"; ///< its folder leads PATH, so `python3` has torch
};

struct tool_result {
  std::string content;
  bool is_error = false;
  double wall_s = 0;
};

std::vector<tool_spec> tool_specs();

/// Runs one call. Never throws for what the call asks (unknown tool, bad JSON arguments, a path
/// outside the workspace, a failing command): those are error results. Throws io_error only when
/// the harness itself cannot work (its own log file).
tool_result run_tool(const tool_call& call, const session_paths& paths, const tool_settings& settings,
                     sandbox::process_runner& runner);

/// The bash tool's whole environment: PATH with the check command and the interpreter first, HOME
/// and TMPDIR in the workspace, nothing else from arbiter's environment but device selection.
std::map<std::string, std::string> bash_environment(const session_paths& paths, const std::string& python);

/// Whether `unshare --user --map-root-user --mount` works here (probed once per process).
bool namespaces_available(sandbox::process_runner& runner, const std::filesystem::path& scratch);

/// Keeps the first and last halves of `text` within max_bytes, with a note of what was cut;
/// invalid UTF-8 bytes become U+FFFD.
std::string clip_output(const std::string& text, std::size_t max_bytes);

} // namespace arbiter::agent
