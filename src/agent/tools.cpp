#include "arbiter/agent/tools.hpp"
#include "arbiter/common/file.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <mutex>

namespace arbiter::agent {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// Runs as root of a fresh user namespace with a private mount table: the out root ($3) is covered
// by an empty tmpfs, then this session's workspace ($1) and tools ($2) are bound back in through
// descriptors opened before the cover (--no-canonicalize keeps mount from resolving them by name).
constexpr const char* k_isolation_script = "set -e\n"
                                           "exec 3<\"$1\" 4<\"$2\"\n"
                                           "mount -t tmpfs -o mode=755 arbiter-hidden \"$3\"\n"
                                           "mkdir -p \"$1\" \"$2\"\n"
                                           "mount --no-canonicalize --bind /proc/self/fd/3 \"$1\"\n"
                                           "mount --no-canonicalize --bind /proc/self/fd/4 \"$2\"\n"
                                           "exec 3<&- 4<&-\n"
                                           "cd \"$1\"\n"
                                           "exec /bin/bash -c \"$4\"\n";

json parse_arguments(const tool_call& call) {
  const json args = json::parse(call.arguments.empty() ? std::string("{}") : call.arguments, nullptr, false);
  if (args.is_discarded()) ARB_THROW(tool_error, "arguments are not valid JSON: " + call.arguments.substr(0, 200));
  if (!args.is_object()) ARB_THROW(tool_error, "arguments must be a JSON object");
  return args;
}

std::string string_argument(const json& args, const char* key) {
  if (!args.contains(key) || !args[key].is_string()) ARB_THROW(tool_error, std::string("missing string argument '") + key + "'");
  return args[key].get<std::string>();
}

tool_result run_bash(const json& args, const session_paths& paths, const tool_settings& settings,
                     sandbox::process_runner& runner) {
  const std::string command = string_argument(args, "command");
  sandbox::process_spec spec;
  if (settings.isolate)
    spec.argv = {"unshare",
                 "--user",
                 "--map-root-user",
                 "--mount",
                 "/bin/bash",
                 "-c",
                 k_isolation_script,
                 "arbiter-bash",
                 paths.workspace.string(),
                 paths.tools_dir.string(),
                 paths.out_root.string(),
                 command};
  else spec.argv = {"/bin/bash", "-c", command};
  spec.env = bash_environment(paths, settings.python);
  spec.cwd = paths.workspace.string();
  spec.timeout_s = settings.bash_timeout_s;
  spec.log_path = (paths.state_dir / "bash.log").string();
  spec.log_head_bytes = settings.max_output_bytes;
  spec.log_tail_bytes = settings.max_output_bytes;
  fs::create_directories(paths.workspace / ".tmp");
  const sandbox::process_result process = runner.run(spec);
  std::string output = clip_output(try_read_file(spec.log_path).value_or(""), settings.max_output_bytes);
  if (process.end == sandbox::process_end::failed_to_start)
    return {"could not run the command: " + process.error, true, process.wall_s};
  std::string status = process.end == sandbox::process_end::exited ? fmt::format("[exit status {}]", process.exit_code)
                                                                   : "[" + sandbox::describe(process) + "]";
  return {output + (output.empty() || output.back() == '\n' ? "" : "\n") + status, false, process.wall_s};
}

tool_result run_write_file(const json& args, const session_paths& paths, const tool_settings& settings) {
  const fs::path target = confine(paths.workspace, string_argument(args, "path"));
  const std::string content = string_argument(args, "content");
  if (content.size() > settings.max_file_bytes)
    ARB_THROW(tool_error,
              fmt::format("content of {} bytes exceeds the limit of {} bytes", content.size(), settings.max_file_bytes));
  fs::create_directories(target.parent_path());
  std::ofstream out(target, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out) ARB_THROW(tool_error, "cannot write " + target.lexically_relative(paths.workspace).string());
  return {fmt::format("wrote {} bytes to {}", content.size(), target.lexically_relative(paths.workspace).string()), false, 0};
}

} // namespace

std::vector<tool_spec> tool_specs() {
  return {
      {"bash",
       "Run a shell command in the workspace folder and return its output (stdout and stderr, truncated) and exit status. "
       "`check` runs your kernel.py against the reference on public inputs.",
       {{"type", "object"},
        {"properties", {{"command", {{"type", "string"}, {"description", "the command line"}}}}},
        {"required", {"command"}}}},
      {"write_file",
       "Write a file in the workspace (created or replaced). The path is relative to the workspace.",
       {{"type", "object"},
        {"properties",
         {{"path", {{"type", "string"}, {"description", "relative path, e.g. kernel.py"}}},
          {"content", {{"type", "string"}, {"description", "the whole file"}}}}},
        {"required", {"path", "content"}}}},
  };
}

tool_result run_tool(const tool_call& call, const session_paths& paths, const tool_settings& settings,
                     sandbox::process_runner& runner) {
  const auto started = std::chrono::steady_clock::now();
  try {
    tool_result result;
    if (call.name == "bash") result = run_bash(parse_arguments(call), paths, settings, runner);
    else if (call.name == "write_file") result = run_write_file(parse_arguments(call), paths, settings);
    else ARB_THROW(tool_error, "unknown tool '" + call.name + "'; the tools are bash and write_file");
    result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
  } catch (const tool_error& e) {
    // The model gets the message without the harness's file:line prefix.
    std::string what = e.what();
    if (const auto cut = what.find(": "); cut != std::string::npos && what.find(".cpp:") < cut) what = what.substr(cut + 2);
    return {"error: " + what, true, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()};
  }
}

std::map<std::string, std::string> bash_environment(const session_paths& paths, const std::string& python) {
  const std::string python_dir = fs::path(python).parent_path().string();
  std::map<std::string, std::string> env{
      {"PATH", (paths.tools_dir / "bin").string() + ":" + python_dir + ":/usr/local/bin:/usr/bin:/bin"},
      {"HOME", paths.workspace.string()},
      {"TMPDIR", (paths.workspace / ".tmp").string()},
      {"LANG", "C.UTF-8"},
      {"TERM", "dumb"},
      {"PYTHONDONTWRITEBYTECODE", "1"},
      {"ARBITER_LOG", "warn"},
  };
  for (const char* name :
       {"CUDA_VISIBLE_DEVICES", "CUDA_HOME", "LD_LIBRARY_PATH", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES"})
    if (const char* value = std::getenv(name)) env[name] = value;
  return env;
}

bool namespaces_available(sandbox::process_runner& runner, const fs::path& scratch) {
  static std::once_flag once;
  static bool available = false;
  std::call_once(once, [&] {
    fs::create_directories(scratch);
    sandbox::process_spec spec;
    spec.argv = {"unshare", "--user", "--map-root-user", "--mount", "/bin/true"};
    spec.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}};
    spec.timeout_s = 20;
    spec.log_path = (scratch / "unshare-probe.log").string();
    const auto result = runner.run(spec);
    available = result.end == sandbox::process_end::exited && result.exit_code == 0;
  });
  return available;
}

} // namespace arbiter::agent
