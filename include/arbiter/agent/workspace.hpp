#pragma once
/// A session's folders and the workspace the model works in: a generated problem statement, the
/// reference, a starting kernel.py and a `check` command; nothing from other sessions or models.
#include "arbiter/catalog/problem.hpp"
#include "arbiter/common/error.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace arbiter::agent {

/// A tool call asked for something it may not have (a path outside the workspace, bad arguments).
class tool_error : public error {
 public:
  using error::error;
};

/// Where one (problem, model) session lives under the output root `out`.
struct session_paths {
  std::filesystem::path out_root;     ///< solutions/
  std::filesystem::path solution_dir; ///< out/<problem>/<model>/: kernel.py, meta.json, trace.jsonl
  std::filesystem::path state_dir;    ///< out/.agent/<problem>/<model>/ (dot folders are no solutions)
  std::filesystem::path workspace;    ///< state_dir/workspace: the model's cwd and HOME
  std::filesystem::path tools_dir;    ///< state_dir/tools: bin/check and the check runs' data
  std::filesystem::path trace() const { return solution_dir / "trace.jsonl"; }
  std::filesystem::path meta() const { return solution_dir / "meta.json"; }
};

/// A model name as a folder name: '/', ':' and whitespace become '-'. Throws config_error for a
/// name that is empty or only dots.
std::string model_folder(std::string_view model);

session_paths paths_for(const std::filesystem::path& out_root, const std::string& problem_id, const std::string& model);

/// The workspace file a tool names: relative, no "..", not empty. Throws tool_error otherwise.
std::filesystem::path confine(const std::filesystem::path& workspace, std::string_view relative);

/// PROBLEM.md: the reference source, shapes, rules, tolerance, target device, how to check, and
/// what ends the session.
std::string problem_statement(const catalog::problem& problem, const std::string& device);

struct workspace_setup {
  std::string device;
  std::filesystem::path arbiter_exe; ///< the binary `check` calls
  std::string python;                ///< interpreter with torch, passed to `arbiter check`
};

/// Creates the folders, PROBLEM.md, reference.py, bin/check, and kernel.py unless one exists (a
/// resumed session keeps its work). Throws io_error.
void prepare_workspace(const session_paths& paths, const catalog::problem& problem, const workspace_setup& setup);

} // namespace arbiter::agent
