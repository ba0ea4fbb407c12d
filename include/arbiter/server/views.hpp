#pragma once
/// The data behind every page of the web leaderboard, as JSON documents: the JSON API serves them
/// as they are, the HTML pages and the exports render them. Each function reads the store only
/// (safe beside a campaign that is writing it) and documents its shape in docs/api.md.
#include "arbiter/common/error.hpp"
#include "arbiter/store/store.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace arbiter::server {

/// An id in a request names nothing in the database: the page answers 404.
class not_found_error : public error {
 public:
  using error::error;
};

using json = nlohmann::ordered_json;

/// Every (suite, hardware, device) board with the leaderboard of its latest campaign.
json boards_view(store::store& db);
/// Every campaign, most recent first, with its progress counts.
json campaigns_view(store::store& db);
/// One campaign's leaderboard: rows with pass@1, speedups, KernelArena score, fast_p, fraction of
/// peak (or why it is not measured), tokens and cost per solved problem, rejected counts; what it
/// ranks by. Throws not_found_error for an unknown campaign.
json leaderboard_view(store::store& db, std::int64_t campaign_id);
/// Progress of a campaign: counts by state and verdict, the evaluations running now, the latest finished.
json progress_view(store::store& db, std::int64_t campaign_id);
/// {"leaderboard": leaderboard_view, "progress": progress_view} of one campaign, read once.
json campaign_view(store::store& db, std::int64_t campaign_id);
/// One model in one campaign: per-problem results, per-level and per-tag breakdown.
json model_view(store::store& db, std::int64_t campaign_id, const std::string& model);
/// One problem in one campaign: every model's solution with verdict, per-shape timings and
/// speedups, findings, source. Throws not_found_error for an unknown problem.
json problem_view(store::store& db, std::int64_t campaign_id, const std::string& problem);
/// One evaluation: result, measurements, findings, details, log tail, environment, re-run command.
/// `db_path` goes into the re-run command.
json evaluation_view(store::store& db, std::int64_t evaluation_id, const std::string& db_path);
/// Every hardware fingerprint, and each model's results across them (portability).
json hardware_view(store::store& db);

} // namespace arbiter::server
