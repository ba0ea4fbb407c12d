#include "arbiter/catalog/problem.hpp"

#include <algorithm>

namespace arbiter::catalog {

// float32 at 1e-3 leaves room for a different summation order over thousands of terms;
// half types carry 11 and 8 significant bits, so their defaults follow their epsilon.
tolerance default_tolerance(const std::string& dtype) {
  if (dtype == "float64") return {1e-7, 1e-7, tolerance_mode::allclose};
  if (dtype == "float16") return {1e-2, 1e-2, tolerance_mode::allclose};
  if (dtype == "bfloat16") return {2e-2, 2e-2, tolerance_mode::allclose};
  if (dtype.starts_with("float8")) return {1e-1, 1e-1, tolerance_mode::allclose};
  if (dtype.starts_with("int") || dtype.starts_with("uint") || dtype == "bool") return {0, 0, tolerance_mode::bitwise};
  return {1e-3, 1e-3, tolerance_mode::allclose};
}

bool shape::runs_on(const std::string& device) const {
  return devices.empty() || std::find(devices.begin(), devices.end(), device) != devices.end();
}

std::vector<shape> problem::shapes_for(const std::string& device) const {
  std::vector<shape> out;
  std::copy_if(shapes.begin(), shapes.end(), std::back_inserter(out), [&](const shape& s) { return s.runs_on(device); });
  return out;
}

} // namespace arbiter::catalog
