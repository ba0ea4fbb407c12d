#include "arbiter/store/rerun.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace arbiter::store {

std::string rerun_command(const campaign_record& campaign, const std::string& problem, const std::string& model,
                          const std::string& db_path) {
  const auto config = nlohmann::json::parse(campaign.config_json.empty() ? "{}" : campaign.config_json, nullptr, false);
  if (config.is_discarded() || !config.is_object()) return "";
  return fmt::format("arbiter eval {} --solutions {} --problems {} --models {} --device {} --db {} --campaign {}-rerun",
                     config.value("suite_dir", "?"), config.value("solutions_dir", "?"), problem, model,
                     config.value("device", campaign.device), db_path, campaign.name);
}

} // namespace arbiter::store
