#include "arbiter/agent/workspace.hpp"
#include "arbiter/common/file.hpp"

#include <fmt/format.h>

#include <fstream>

namespace arbiter::agent {

namespace fs = std::filesystem;

namespace {

void write_text(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::trunc);
  out << text;
  if (!out) ARB_THROW(io_error, "cannot write " + file.string());
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string shapes_section(const catalog::problem& problem, const std::string& device) {
  std::string out;
  for (const auto& shape : problem.shapes_for(device)) {
    std::string params;
    for (const auto& [key, value] : shape.params.items())
      params += fmt::format("{}{}={}", params.empty() ? "" : ", ", key, value.dump());
    out += fmt::format("- `{}`: {}\n", shape.name, params.empty() ? "the reference's defaults" : params);
  }
  return out.empty() ? "- (none for this device)\n" : out;
}

std::string rules_section(const catalog::problem& problem) {
  const catalog::rules& r = problem.rule;
  std::string out;
  auto list = [](const std::vector<std::string>& items) {
    std::string text;
    for (const auto& item : items) text += (text.empty() ? "" : ", ") + ("`" + item + "`");
    return text;
  };
  out += "- languages: " +
      (r.languages.empty() ? std::string("any (PyTorch extensions, Triton, CUDA via load_inline)") : list(r.languages)) + "\n";
  if (!r.forbid.empty()) out += "- forbidden calls: " + list(r.forbid) + "\n";
  out += std::string("- library-backed ops (cuBLAS, cuDNN, CUTLASS): ") + (r.libraries ? "allowed" : "not allowed") + "\n";
  if (r.max_launches > 0) out += fmt::format("- at most {} kernel launches per forward call\n", r.max_launches);
  out += std::string("- CUDA graphs: ") + (r.cuda_graphs ? "allowed" : "not allowed") +
      "; extra streams: " + (r.extra_streams ? "allowed" : "not allowed") + "\n";
  out += "- the inputs must not be modified; outputs must be fully written by the forward call\n";
  return out;
}

std::string tolerance_line(const catalog::problem& problem) {
  if (problem.tol.mode == catalog::tolerance_mode::bitwise) return "bitwise equality with the reference";
  return fmt::format("allclose with atol={} and rtol={} (dtype {}); NaN or Inf fails; shape and dtype must match exactly",
                     problem.tol.atol, problem.tol.rtol, problem.dtype);
}

} // namespace

std::string model_folder(std::string_view model) {
  std::string out(model);
  for (char& c : out)
    if (c == '/' || c == ':' || c == '\\' || c == ' ' || c == '\t' || c == '\n') c = '-';
  if (out.find_first_not_of('.') == std::string::npos)
    ARB_THROW(config_error, "--model: '" + std::string(model) + "' cannot name a folder");
  return out;
}

session_paths paths_for(const fs::path& out_root, const std::string& problem_id, const std::string& model) {
  session_paths p;
  p.out_root = fs::absolute(out_root);
  p.solution_dir = p.out_root / problem_id / model_folder(model);
  p.state_dir = p.out_root / ".agent" / problem_id / model_folder(model);
  p.workspace = p.state_dir / "workspace";
  p.tools_dir = p.state_dir / "tools";
  return p;
}

fs::path confine(const fs::path& workspace, std::string_view relative) {
  if (relative.empty()) ARB_THROW(tool_error, "path is empty");
  const fs::path rel(relative);
  if (rel.is_absolute())
    ARB_THROW(tool_error, "path '" + std::string(relative) + "' is absolute; give a path relative to the workspace");
  for (const auto& part : rel)
    if (part == "..") ARB_THROW(tool_error, "path '" + std::string(relative) + "' contains '..'; stay inside the workspace");
  const fs::path full = (workspace / rel).lexically_normal();
  if (full == workspace.lexically_normal() || full.filename().empty())
    ARB_THROW(tool_error, "path '" + std::string(relative) + "' names no file");
  // A symlink the model made inside the workspace must not lead out of it.
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(full, ec);
  const fs::path root = fs::weakly_canonical(workspace, ec);
  const auto [root_end, unused] = std::mismatch(root.begin(), root.end(), resolved.begin(), resolved.end());
  if (ec || root_end != root.end()) ARB_THROW(tool_error, "path '" + std::string(relative) + "' leads outside the workspace");
  return full;
}

std::string problem_statement(const catalog::problem& problem, const std::string& device) {
  return fmt::format(
      "# Problem {id}: {title}\n\n"
      "Write `kernel.py` in this folder: a faster drop-in replacement for the PyTorch reference below.\n"
      "It must define `class ModelNew(torch.nn.Module)` whose constructor takes the same arguments as `Model`'s\n"
      "and whose `forward` returns the same outputs for the same inputs. Parameters with the same names as\n"
      "`Model`'s receive the reference weights.\n\n"
      "## Reference (`reference.py`)\n\n```python\n{source}```\n\n"
      "## Target\n\n- device: `{device}`\n- level: {level}\n- dtype: {dtype}\n\n"
      "## Shapes (keyword arguments of `get_inputs` / `get_init_inputs`)\n\n{shapes}\n"
      "## Correctness\n\n{tolerance}, on several input sets per shape, with inputs scaled and outputs\n"
      "checked for unwritten elements.\n\n"
      "## Rules\n\n{rules}\n"
      "## How to check\n\n"
      "Run `check` (or `check other.py`) with the bash tool: it runs your kernel.py against the reference on the\n"
      "PUBLIC inputs and prints the verdict, the reason of any failure and the speedup over eager PyTorch\n"
      "(`check --json` for details). Final scoring runs on secret inputs you cannot see, so do not special-case\n"
      "the public ones.\n\n"
      "## Tools and the end\n\n"
      "- `bash`: runs a command in this folder (time-limited, output truncated); no network.\n"
      "- `write_file`: writes a file in this folder (relative paths only).\n\n"
      "When you are done, answer without calling a tool. Your solution is this folder's `kernel.py` at that moment.\n",
      fmt::arg("id", problem.id), fmt::arg("title", problem.title.empty() ? problem.id : problem.title),
      fmt::arg("source", read_file(problem.reference_file)), fmt::arg("device", device), fmt::arg("level", problem.level),
      fmt::arg("dtype", problem.dtype), fmt::arg("shapes", shapes_section(problem, device)),
      fmt::arg("tolerance", tolerance_line(problem)), fmt::arg("rules", rules_section(problem)));
}

void prepare_workspace(const session_paths& paths, const catalog::problem& problem, const workspace_setup& setup) {
  fs::create_directories(paths.workspace);
  fs::create_directories(paths.tools_dir / "bin");
  fs::create_directories(paths.solution_dir);
  write_text(paths.workspace / "PROBLEM.md", problem_statement(problem, setup.device));
  write_text(paths.workspace / "reference.py", read_file(problem.reference_file));
  const fs::path check = paths.tools_dir / "bin" / "check";
  write_text(check,
             fmt::format("#!/bin/sh\n"
                         "# check [FILE] [--json]: FILE (default kernel.py) against the reference on public inputs.\n"
                         "file=kernel.py; json=\n"
                         "for arg in \"$@\"; do case \"$arg\" in --json) json=--json ;; *) file=\"$arg\" ;; esac; done\n"
                         "exec {} check --problem {} --solution \"$file\" --device {} --data {} --python {} $json\n",
                         shell_quote(setup.arbiter_exe.string()), shell_quote(problem.dir.string()), shell_quote(setup.device),
                         shell_quote((paths.tools_dir / "data").string()), shell_quote(setup.python)));
  fs::permissions(check,
                  fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                      fs::perms::others_exec);
}

} // namespace arbiter::agent
