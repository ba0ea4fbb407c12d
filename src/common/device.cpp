#include "arbiter/common/device.hpp"

#include "arbiter/common/error.hpp"

namespace arbiter {

bool is_device(std::string_view name) { return name == "cpu" || name == "cuda"; }

const std::string& require_device(const std::string& name, const std::string& where) {
  if (!is_device(name)) ARB_THROW(config_error, where + ": expected \"cpu\" or \"cuda\", found \"" + name + "\"");
  return name;
}

} // namespace arbiter
