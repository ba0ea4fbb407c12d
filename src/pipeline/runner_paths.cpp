#include "arbiter/common/error.hpp"
#include "arbiter/pipeline/options.hpp"

#include <cstdlib>
#include <unistd.h>

namespace arbiter::pipeline {

namespace fs = std::filesystem;

namespace {

fs::path executable_dir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : self.parent_path();
}

fs::path first_existing(const char* env_name, const std::vector<fs::path>& candidates, const std::string& what) {
  if (const char* value = std::getenv(env_name)) {
    if (fs::exists(value)) return fs::absolute(value);
    ARB_THROW(config_error, std::string(env_name) + "=" + value + ": no such " + what);
  }
  std::string tried;
  for (const auto& candidate : candidates) {
    if (fs::exists(candidate)) return fs::canonical(candidate);
    tried += " " + candidate.string();
  }
  ARB_THROW(config_error, "cannot find the " + what + " (set " + env_name + "); looked at:" + tried);
}

} // namespace

runner_paths locate_runner() {
  const fs::path bin = executable_dir();
  runner_paths paths;
  paths.runtime_lib =
      first_existing("ARBITER_RUNTIME_LIB", {bin / "../lib/libarbiter_runtime.so"}, "runtime library libarbiter_runtime.so");
  paths.python_dir =
      first_existing("ARBITER_PYTHONPATH", {bin / "../share/arbiter/python", fs::path(ARBITER_SOURCE_DIR) / "python"},
                     "Python runner package folder");
  return paths;
}

} // namespace arbiter::pipeline
