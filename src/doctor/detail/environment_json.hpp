#pragma once
/// The environment as JSON: what `doctor --json` prints and what hardware records store.
/// Private to the doctor.
#include "arbiter/doctor/doctor.hpp"

#include <nlohmann/json.hpp>

namespace arbiter::doctor::detail {

nlohmann::json to_json(const environment& env);

} // namespace arbiter::doctor::detail
