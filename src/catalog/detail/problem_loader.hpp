#pragma once
#include "arbiter/catalog/problem.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>

namespace arbiter::catalog::detail {

/// What suite.toml sets for every problem that does not set it itself.
struct suite_defaults {
  std::optional<tolerance> tol;
  nlohmann::json rules = nlohmann::json::object();
};

/// A problem folder: reference.py plus optional problem.toml.
problem load_problem_folder(const std::filesystem::path& dir, const suite_defaults& defaults);
/// A bare KernelBench file: id = file stem, one default shape.
problem load_bare_problem(const std::filesystem::path& file, const suite_defaults& defaults);

} // namespace arbiter::catalog::detail
