#include "detail/chunks.hpp"

#include <cstdlib>
#include <string>

namespace arbiter::verify::detail {

namespace {

// ARBITER_VERIFY_THREADS overrides the core count (bench/verify compares 1 thread with all).
unsigned configured_workers() {
  if (const char* env = std::getenv("ARBITER_VERIFY_THREADS"); env != nullptr && *env != '\0') {
    try {
      return static_cast<unsigned>(std::clamp(std::stoi(env), 1, 16));
    } catch (const std::exception&) {
      // not a number: the default below
    }
  }
  return std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
}

} // namespace

unsigned worker_count() {
  static const unsigned count = configured_workers();
  return count;
}

} // namespace arbiter::verify::detail
