#pragma once
/// A suite: a folder of problems with suite.toml, or a KernelBench-format folder of bare .py files.
#include "arbiter/catalog/problem.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace arbiter::catalog {

struct suite {
  std::string name;
  std::string description;
  std::filesystem::path dir;
  std::vector<problem> problems; ///< sorted by id

  const problem* find(const std::string& id) const;
};

/// Loads `dir`. A folder with suite.toml, or whose sub-folders hold reference.py, is a suite of
/// problem folders; a folder of *.py files (KernelBench's levelN/) is a suite of bare problems.
/// Throws config_error naming the file, the key and what was expected.
suite load_suite(const std::filesystem::path& dir);

} // namespace arbiter::catalog
