#pragma once
/// The devices arbiter evaluates on, named in one place: "cpu" and "cuda".
#include <string>
#include <string_view>

namespace arbiter {

/// Whether name is one of the devices ("cpu", "cuda").
bool is_device(std::string_view name);

/// name where it is a device; else a config_error naming where it came from (a flag, a file and
/// its key) and what was expected: `<where>: expected "cpu" or "cuda", found "<name>"`.
const std::string& require_device(const std::string& name, const std::string& where);

} // namespace arbiter
