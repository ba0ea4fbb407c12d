#pragma once
/// The guard's version: the first 16 hex digits of a SHA-256 over every file that decides a
/// verdict (the guard's rules, the static facts code, the runner's checks and the judgement), taken
/// when arbiter was built (src/guard/guard_version.cmake). Every evaluation records the version it
/// was judged under; `arbiter rejudge` re-applies the current one (docs/guard.md).
#include <string>

namespace arbiter::guard {

/// This build's guard version: 16 lowercase hex digits.
const std::string& guard_version();

} // namespace arbiter::guard
