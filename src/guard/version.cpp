#include "arbiter/guard/version.hpp"

#include "guard_version_hash.hpp" // generated at build time by guard_version.cmake

namespace arbiter::guard {

const std::string& guard_version() {
  static const std::string version = ARBITER_GUARD_VERSION;
  return version;
}

} // namespace arbiter::guard
