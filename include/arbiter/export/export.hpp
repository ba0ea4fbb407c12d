#pragma once
/// Exports of one campaign: JSON, CSV and Markdown to a stream, and the KernelArena layout
/// (index.json plus solutions/<problem>/<model>/) that `import_kernelarena` reads back into a
/// database with the same leaderboard.
#include "arbiter/store/store.hpp"

#include <filesystem>
#include <ostream>
#include <string>

namespace arbiter::exporting {

enum class export_format : int { json, csv, markdown };

/// JSON: the leaderboard as the web API serves it and every evaluation. CSV: one record per
/// evaluation. Markdown: the leaderboard and a problem × model verdict matrix.
/// Throws server::not_found_error for an unknown campaign, store_error on database failures.
void export_campaign(store::store& db, std::int64_t campaign_id, export_format format, std::ostream& out);

/// Writes <dir>/index.json and <dir>/solutions/<problem>/<model>[/<sample>]/ (sources + meta.json).
/// Returns the number of entries. Throws io_error when a file cannot be written.
std::size_t write_kernelarena(store::store& db, std::int64_t campaign_id, const std::filesystem::path& dir);

/// Reads a KernelArena export into `db` as the campaign `campaign_name` ("" = the name recorded in
/// index.json), with the recorded verdicts, speedups and timings; entries already present are kept.
/// Returns the campaign. Throws config_error naming the file and key when index.json is malformed.
store::campaign_record import_kernelarena(store::store& db, const std::filesystem::path& dir, const std::string& campaign_name);

} // namespace arbiter::exporting
