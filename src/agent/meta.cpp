// meta.json of a session: what the leaderboard and `arbiter eval` read back (docs/agent.md).
#include "arbiter/agent/session.hpp"

#include <fstream>
#include <unistd.h>

namespace arbiter::agent {

namespace fs = std::filesystem;
using json = nlohmann::json;

json session_meta(const session_config& config, const std::string& problem_id, const session_result& result,
                  const std::vector<json>& per_turn) {
  json prices = nullptr;
  if (config.prices)
    prices = {{"input", config.prices->input},
              {"output", config.prices->output},
              {"cache_read", config.prices->cache_read},
              {"cache_write", config.prices->cache_write}};
  return {{"harness", "arbiter-basic"},
          {"model", config.endpoint.model},
          {"api", to_string(config.endpoint.api)},
          {"problem", problem_id},
          {"device", config.setup.device},
          {"stop_reason", to_string(result.reason)},
          {"error", result.error},
          {"turns", result.turns},
          {"wall_s", result.wall_s},
          {"tokens", to_json(result.used)},
          {"tokens_per_turn", per_turn},
          {"cost_usd", result.cost ? json(*result.cost) : json(nullptr)},
          {"price_per_mtok_usd", prices},
          {"solution", result.has_solution},
          {"resumed", result.resumed},
          {"isolation", config.tools.isolate ? "namespaces" : "folders"},
          {"trace", "trace.jsonl"}};
}

void write_json_atomic(const fs::path& file, const json& value) {
  fs::create_directories(file.parent_path());
  const fs::path temporary = file.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << value.dump(2, ' ', false, json::error_handler_t::replace) << '\n';
    if (!out) ARB_THROW(io_error, "cannot write " + temporary.string());
  }
  std::error_code ec;
  fs::rename(temporary, file, ec);
  if (ec) ARB_THROW(io_error, "cannot rename " + temporary.string() + " to " + file.string() + ": " + ec.message());
}

} // namespace arbiter::agent
