// Loading one campaign for its pages, and the facts the views share.
#include "detail/campaign_data.hpp"

#include <fmt/format.h>

namespace arbiter::server::detail {

store::campaign_record find_campaign(store::store& db, std::int64_t campaign_id) {
  auto campaign = db.campaign(campaign_id);
  if (!campaign) ARB_THROW(not_found_error, fmt::format("no campaign {}", campaign_id));
  return *campaign;
}

std::optional<store::hardware_view> hardware_of(store::store& db, const store::campaign_record& campaign) {
  for (auto& hw : db.hardware_list())
    if (hw.id == campaign.hardware_id) return std::move(hw);
  return std::nullopt;
}

campaign_data load_campaign(store::store& db, std::int64_t campaign_id) {
  campaign_data data;
  data.campaign = find_campaign(db, campaign_id);
  data.hardware = hardware_of(db, data.campaign);
  data.problems = db.campaign_problems(campaign_id);
  data.evaluations = db.evaluation_rows(campaign_id);
  data.problem_count = db.problem_count(campaign_id);
  return data;
}

std::vector<store::result_row> result_rows(const std::vector<store::evaluation_row>& evaluations) {
  std::vector<store::result_row> rows;
  rows.reserve(evaluations.size());
  for (const auto& e : evaluations)
    if (e.status == "done" && e.v) rows.push_back({e.model, e.problem, e.sample, *e.v, e.speedup});
  return rows;
}

std::string hardware_name(const store::hardware_record& hw) {
  if (!hw.gpu_name.empty()) return hw.gpu_name;
  return hw.host.empty() ? std::string("CPU") : "CPU (" + hw.host + ")";
}

json campaign_header(const store::campaign_record& campaign, const std::optional<store::hardware_view>& hardware) {
  json hw = nullptr;
  if (hardware)
    hw = {{"id", hardware->id}, {"name", hardware_name(hardware->record)}, {"fingerprint", hardware->record.fingerprint}};
  return {{"id", campaign.id},
          {"name", campaign.name},
          {"suite", campaign.suite},
          {"device", campaign.device},
          {"status", campaign.status},
          {"created_at", campaign.created_at},
          {"hardware", hw}};
}

std::string clock_of(const store::campaign_record& campaign) { return campaign.device == "cuda" ? "device" : "host"; }

std::string ranked_by(const store::campaign_record& campaign) {
  const std::string clock = campaign.device == "cuda" ? "device time (CUDA events)" : "host time (monotonic clock)";
  return "speedup over eager PyTorch: median " + clock + " per shape, geometric mean over shapes";
}

json merged(json base, const json& extra) {
  base.update(extra);
  return base;
}

json parse_object(const std::string& text) {
  json parsed = json::parse(text.empty() ? "{}" : text, nullptr, false);
  return parsed.is_object() ? parsed : json::object();
}

namespace {

std::optional<double> tokens_of(const json& meta) {
  if (const auto it = meta.find("tokens"); it != meta.end()) {
    if (it->is_number()) return it->get<double>();
    if (!it->is_object()) return std::nullopt;
    std::optional<double> sum;
    for (const char* part : {"input", "output", "cache_read", "cache_write"})
      if (auto value = number_at(*it, part)) sum = sum.value_or(0) + *value;
    return sum;
  }
  const auto input = number_at(meta, "input_tokens");
  const auto output = number_at(meta, "output_tokens");
  if (!input && !output) return std::nullopt;
  return input.value_or(0) + output.value_or(0);
}

} // namespace

usage usage_of(const std::string& meta_json) {
  usage out;
  if (meta_json.size() <= 2) return out; // "{}": the common case, no parse
  const json meta = parse_object(meta_json);
  out.tokens = tokens_of(meta);
  out.cost_usd = number_at(meta, "cost_usd");
  if (!out.cost_usd) out.cost_usd = number_at(meta, "cost");
  if (const auto it = meta.find("harness"); it != meta.end() && it->is_string()) out.harness = it->get<std::string>();
  return out;
}

} // namespace arbiter::server::detail
