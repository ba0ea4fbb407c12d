#pragma once
/// What every campaign page reads first, and the small facts several views share.
#include "arbiter/common/json_number.hpp"
#include "arbiter/server/views.hpp"

#include <optional>
#include <string>
#include <vector>

namespace arbiter::server::detail {

/// One campaign as its pages need it: the record, its hardware, problems and evaluations.
struct campaign_data {
  store::campaign_record campaign;
  std::optional<store::hardware_view> hardware;
  std::vector<store::problem_view> problems;
  std::vector<store::evaluation_row> evaluations;
  std::int64_t problem_count = 0; ///< the denominator of pass@1 (store::problem_count)
};

/// Throws not_found_error when no campaign has this id.
store::campaign_record find_campaign(store::store& db, std::int64_t campaign_id);
/// The machine the campaign ran on, if its hardware row exists.
std::optional<store::hardware_view> hardware_of(store::store& db, const store::campaign_record& campaign);
/// Reads the campaign, its hardware, problems and evaluations. Throws not_found_error.
campaign_data load_campaign(store::store& db, std::int64_t campaign_id);
/// The finished evaluations as scoring reads them.
std::vector<store::result_row> result_rows(const std::vector<store::evaluation_row>& evaluations);

/// {id, name, suite, device, status, created_at, hardware: {id, name, fingerprint} | null}.
json campaign_header(const store::campaign_record& campaign, const std::optional<store::hardware_view>& hardware);
/// The human name of a machine: the GPU, or "CPU (<host>)".
std::string hardware_name(const store::hardware_record& hw);
/// What the leaderboard ranks by: baseline, clock and how shapes combine.
std::string ranked_by(const store::campaign_record& campaign);
/// Which clock the campaign's timings come from: "device" or "host".
std::string clock_of(const store::campaign_record& campaign);

/// What a solution's meta.json says it cost; each part empty where meta.json does not say.
struct usage {
  std::optional<double> tokens;
  std::optional<double> cost_usd;
  std::string harness;
};
/// Reads `tokens` ({input, output, cache_read, cache_write} summed, or a number), `input_tokens` +
/// `output_tokens`, `cost_usd` (or `cost`) and `harness`. Malformed meta.json reads as empty.
usage usage_of(const std::string& meta_json);

/// `base` with the keys of `extra` added (or replaced).
json merged(json base, const json& extra);
/// The JSON object in `text`, or an empty object when it is not one.
json parse_object(const std::string& text);

} // namespace arbiter::server::detail
