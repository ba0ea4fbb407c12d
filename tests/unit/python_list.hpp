#pragma once
// The names in a tuple constant of one of the runner's Python modules (NAME = ("a", "b", ...)), read
// from its source: the tests that hold a C++ list and the runner's own together use it.
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

inline std::set<std::string> python_tuple(const std::filesystem::path& module, const std::string& name) {
  std::ifstream file(module);
  std::stringstream text;
  text << file.rdbuf();
  const std::string source = text.str();
  std::smatch tuple;
  std::set<std::string> names;
  if (!std::regex_search(source, tuple, std::regex(name + R"( = \(([^)]*)\))"))) return names;
  const std::string listed = tuple[1].str();
  const std::regex quoted("\"([a-z0-9_]+)\"");
  for (auto it = std::sregex_iterator(listed.begin(), listed.end(), quoted); it != std::sregex_iterator(); ++it)
    names.insert((*it)[1].str());
  return names;
}
