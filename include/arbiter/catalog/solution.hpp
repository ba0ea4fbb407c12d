#pragma once
/// Solutions: solutions/<problem-id>/<model>/kernel.py (+ meta.json); further samples for pass@k
/// in numbered sub-folders <model>/<n>/.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace arbiter::catalog {

struct suite;

struct solution {
  std::string problem_id;
  std::string model;
  int sample = 0;
  std::filesystem::path dir;                ///< holds kernel.py
  std::filesystem::path entry;              ///< kernel.py
  std::vector<std::filesystem::path> files; ///< sources relative to dir (numbered samples excluded)
  std::string hash;                         ///< content hash of files (meta.json excluded)
  nlohmann::json meta = nlohmann::json::object();
  std::vector<std::string> devices; ///< from meta.json "devices"; empty = any

  std::string label() const; ///< "problem/model" or "problem/model#n"
  bool runs_on(const std::string& device) const;
};

struct solution_filter {
  std::vector<std::string> models;   ///< empty = all
  std::vector<std::string> problems; ///< empty = all
};

/// Scans root for solutions of the suite's problems. Folders naming no problem of the suite are
/// reported in `ignored` (never silently dropped). Throws config_error for an unreadable meta.json.
std::vector<solution> load_solutions(const std::filesystem::path& root, const suite& s, const solution_filter& filter,
                                     std::vector<std::string>* ignored);

} // namespace arbiter::catalog
