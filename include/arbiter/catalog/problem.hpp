#pragma once
/// A problem of a suite: a PyTorch reference plus what problem.toml says about it
/// (docs/design.md §2 Formats). Loading never runs Python.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace arbiter::catalog {

enum class tolerance_mode : int { allclose, bitwise };

struct tolerance {
  double atol = 1e-3;
  double rtol = 1e-3;
  tolerance_mode mode = tolerance_mode::allclose;
  /// Elements of all outputs together that may fall outside atol/rtol, as a fraction of the
  /// elements (rounded down; none by default). For quantised outputs whose block scale can flip at
  /// a rounding boundary; a non-finite element is never allowed.
  double mismatch_fraction = 0;
};

/// One case set: a name, the devices it runs on, and keyword arguments for get_inputs /
/// get_init_inputs (every key of the [[shapes]] table except `name` and `devices`).
struct shape {
  std::string name;
  std::vector<std::string> devices; ///< empty = every device
  nlohmann::json params = nlohmann::json::object();

  bool runs_on(const std::string& device) const;
};

struct rules {
  std::vector<std::string> languages;
  std::vector<std::string> forbid;
  bool libraries = false;
  int max_launches = 0;
  bool cuda_graphs = false;
  bool extra_streams = false;
};

struct problem {
  std::string id;
  std::string title;
  int level = 1;
  std::vector<std::string> tags;
  std::string dtype = "float32";
  tolerance tol; ///< resolved: problem, then suite, then dtype default
  bool tol_explicit = false;
  std::vector<shape> shapes;
  rules rule;
  std::vector<double> stress_scales;
  nlohmann::json roofline = nlohmann::json::object();
  bool compile_baseline = false;                  ///< [baselines] compile: time torch.compile of the reference
  std::filesystem::path sota_file;                ///< [baselines] sota, in dir (checked to exist); empty = none
  std::filesystem::path dir;                      ///< the problem folder (or the folder of a bare file)
  std::filesystem::path reference_file;           ///< reference.py, or the bare KernelBench file
  std::string hash;                               ///< content hash of everything that defines the problem
  nlohmann::json spec = nlohmann::json::object(); ///< problem.toml as JSON, for the store

  /// Shapes that run on device, in file order.
  std::vector<shape> shapes_for(const std::string& device) const;
};

/// The default tolerance for a dtype name (float32, float16, bfloat16, float64, float8_*, ints).
tolerance default_tolerance(const std::string& dtype);

} // namespace arbiter::catalog
