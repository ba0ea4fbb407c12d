#pragma once
#include "arbiter/catalog/problem.hpp"
#include "arbiter/catalog/toml_reader.hpp"

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
/// A [tolerance] table (the suite's or a problem's) over base: atol, rtol (numbers ≥ 0), mode
/// (allclose or bitwise; an atol or rtol asks for allclose where base is bitwise) and
/// mismatch_fraction; a bad value is a config_error naming where and the key.
tolerance read_tolerance(const toml_view& t, tolerance base, const std::string& where);

problem load_problem_folder(const std::filesystem::path& dir, const suite_defaults& defaults);
/// A bare KernelBench file: id = file stem, one default shape.
problem load_bare_problem(const std::filesystem::path& file, const suite_defaults& defaults);

} // namespace arbiter::catalog::detail
