#include "arbiter/catalog/suite.hpp"

#include "arbiter/catalog/toml_reader.hpp"
#include "arbiter/common/error.hpp"
#include "detail/problem_loader.hpp"

#include <algorithm>
#include <set>

namespace arbiter::catalog {

namespace fs = std::filesystem;

namespace {

detail::suite_defaults read_defaults(const toml_view& view, const std::string& where) {
  detail::suite_defaults defaults;
  if (auto t = view.table("tolerance")) defaults.tol = detail::read_tolerance(*t, tolerance{}, where);
  if (auto r = view.table("rules")) defaults.rules = r->json();
  return defaults;
}

std::vector<fs::path> sorted_entries(const fs::path& dir) {
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(dir)) entries.push_back(entry.path());
  std::sort(entries.begin(), entries.end());
  return entries;
}

void load_problems(suite& s, const detail::suite_defaults& defaults) {
  for (const auto& entry : sorted_entries(s.dir)) {
    const std::string name = entry.filename().string();
    if (name.starts_with(".") || name.starts_with("_")) continue;
    if (fs::is_directory(entry) && fs::exists(entry / "reference.py"))
      s.problems.push_back(detail::load_problem_folder(entry, defaults));
    else if (fs::is_regular_file(entry) && entry.extension() == ".py")
      s.problems.push_back(detail::load_bare_problem(entry, defaults));
  }
}

void check_unique(const suite& s) {
  std::set<std::string> ids;
  for (const auto& p : s.problems)
    if (!ids.insert(p.id).second) ARB_THROW(config_error, s.dir.string() + ": problem id '" + p.id + "' is used by two problems");
}

} // namespace

const problem* suite::find(const std::string& id) const {
  for (const auto& p : problems)
    if (p.id == id) return &p;
  return nullptr;
}

suite load_suite(const fs::path& dir) {
  if (!fs::is_directory(dir)) ARB_THROW(config_error, dir.string() + ": expected a suite folder");
  suite s;
  s.dir = fs::canonical(dir);
  s.name = s.dir.filename().string();
  detail::suite_defaults defaults;
  const fs::path toml_file = s.dir / "suite.toml";
  if (fs::is_regular_file(toml_file)) {
    const nlohmann::json spec = read_toml(toml_file);
    const toml_view view(spec, toml_file.string());
    s.name = view.str("name").value_or(s.name);
    s.description = view.str("description").value_or("");
    defaults = read_defaults(view, toml_file.string());
  }
  try {
    load_problems(s, defaults);
  } catch (const error&) {
    rethrow_with_context("while loading suite " + s.dir.string());
  }
  if (s.problems.empty())
    ARB_THROW(config_error,
              s.dir.string() + ": no problems found (expected problem folders with reference.py, or KernelBench *.py files)");
  std::sort(s.problems.begin(), s.problems.end(), [](const problem& a, const problem& b) { return a.id < b.id; });
  check_unique(s);
  return s;
}

} // namespace arbiter::catalog
