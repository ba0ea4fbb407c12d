#pragma once
/// The timing records of a shape as the judge reads them (runtime::timing_record): the reference's
/// file and the candidate's record on the channel.
#include "arbiter/judge/events.hpp"
#include "arbiter/runtime/timing_record.hpp"
#include "arbiter/store/records.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace arbiter::judge::detail {

/// A timing record's measurement row (role, shape and speedup left to the caller).
store::measurement_record measurement_of(const runtime::timing_record& record);

/// Reads a timing JSON written by the C runtime; a discarded value if missing or malformed.
nlohmann::json read_timing_json(const std::filesystem::path& file);

/// The timing file's record (runtime::parse_timing_record); none if missing or malformed.
std::optional<runtime::timing_record> read_timing_file(const std::filesystem::path& file);

/// The record of the first "timing" event of the shape on the channel, as sent; none if there is none.
std::optional<nlohmann::json> channel_record(const runner_events& events, std::size_t shape_idx);

/// channel_record, read (runtime::parse_timing_record); none if missing or malformed.
std::optional<runtime::timing_record> channel_timing(const runner_events& events, std::size_t shape_idx);

/// The sample indices a timing record says its stats leave out (dropped_idx), ascending.
std::vector<std::int64_t> dropped_samples(const runtime::timing_record& record);

/// Whether every sample a timing record kept ran behind the stream hold (held_samples ≥ samples > 0):
/// then its events bracket the device work and not the host's launches (guard::compare_clocks).
bool timer_held(const runtime::timing_record& record);

} // namespace arbiter::judge::detail
