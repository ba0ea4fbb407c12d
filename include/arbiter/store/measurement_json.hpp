#pragma once
/// One stored timing as JSON: the form `arbiter show --json`, the evaluation page's data and the
/// KernelArena export share, and the one the import reads back.
#include "arbiter/store/records.hpp"

#include <nlohmann/json.hpp>

namespace arbiter::store {

/// Every field of the record; an absent optional (speedup, host latency, SM clock) is null.
nlohmann::ordered_json measurement_json(const measurement_record& m);

/// The record back from measurement_json's form. A key that is missing or of another type takes
/// the record's default, so exports written before a field existed still read.
measurement_record measurement_from_json(const nlohmann::ordered_json& m);

} // namespace arbiter::store
