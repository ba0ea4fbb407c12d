#include "failure.hpp"

namespace arbiter::runtime {

namespace {
// Thread-local so that concurrent callers (e.g. a harness thread and a watchdog) never read each
// other's messages.
thread_local std::string t_last_error;
} // namespace

void fail(int code, const std::string& message) { throw runtime_failure(code, message); }

void set_last_error(const std::string& message) noexcept {
  try {
    t_last_error = message;
  } catch (...) {
    t_last_error.clear(); // out of memory while copying: an empty message beats none at all
  }
}

const char* last_error() noexcept { return t_last_error.c_str(); }

} // namespace arbiter::runtime
