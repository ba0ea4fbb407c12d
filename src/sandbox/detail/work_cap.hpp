#pragma once
/// The size cap of a sandboxed process's own folders, enforced once it has ended. Private to the
/// sandbox.
#include <cstdint>
#include <string>
#include <vector>

namespace arbiter::sandbox::detail {

/// Sums the disk space of the regular files under `folders` (symlinks not followed); past `cap`
/// bytes, removes the largest files until the rest fits. Returns one line saying what it held and
/// removed ("work folder /e/1/work held 1.5 GiB, over its cap of 1.0 GiB: 2 files (1.4 GiB)
/// removed"), or empty when it fits (or cap is 0).
std::string enforce_work_cap(const std::vector<std::string>& folders, std::uint64_t cap);

} // namespace arbiter::sandbox::detail
