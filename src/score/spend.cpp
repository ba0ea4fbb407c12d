// Agent spend from meta.json: several harnesses write it (arbiter's own loop, imports of Claude
// Code and Codex logs, hand-written files), so each part is read where it is and left empty where
// it is not, never guessed.
#include "arbiter/score/spend.hpp"

#include "arbiter/common/json_number.hpp"

#include <nlohmann/json.hpp>

namespace arbiter::score {

namespace {

using json = nlohmann::json;

std::optional<double> sum_of(const json& object, const char* first, const char* second) {
  const auto a = number_at(object, first);
  const auto b = number_at(object, second);
  if (!a && !b) return std::nullopt;
  return a.value_or(0) + b.value_or(0);
}

void add(std::optional<double>& into, const std::optional<double>& value) {
  if (value) into = into.value_or(0) + *value;
}

void read_tokens(const json& meta, spend& out) {
  const auto it = meta.find("tokens");
  if (it == meta.end()) {
    out.tokens = sum_of(meta, "input_tokens", "output_tokens");
    return;
  }
  if (it->is_number()) out.tokens = it->get<double>();
  if (!it->is_object()) return;
  out.tokens = sum_of(*it, "input", "output");
  out.cache_tokens = sum_of(*it, "cache_read", "cache_write");
  if (!out.tokens && !out.cache_tokens) out.tokens = number_at(*it, "total");
}

} // namespace

spend& spend::operator+=(const spend& other) {
  add(tokens, other.tokens);
  add(cache_tokens, other.cache_tokens);
  add(cost_usd, other.cost_usd);
  add(wall_s, other.wall_s);
  return *this;
}

session_meta read_session_meta(std::string_view meta_json) {
  session_meta out;
  if (meta_json.size() <= 2) return out; // "{}" or nothing: the common case, no parse
  const json meta = json::parse(meta_json, nullptr, false);
  if (!meta.is_object()) return out;
  if (const auto it = meta.find("harness"); it != meta.end() && it->is_string()) out.harness = it->get<std::string>();
  read_tokens(meta, out.spent);
  out.spent.cost_usd = number_at(meta, "cost_usd");
  if (!out.spent.cost_usd) out.spent.cost_usd = number_at(meta, "cost");
  out.spent.wall_s = number_at(meta, "wall_s");
  return out;
}

std::optional<double> per_solved(const std::optional<double>& total, std::int64_t solved) {
  if (!total || solved <= 0) return std::nullopt;
  return *total / static_cast<double>(solved);
}

spend per_solved(const spend& total, std::int64_t solved) {
  return {per_solved(total.tokens, solved), per_solved(total.cache_tokens, solved), per_solved(total.cost_usd, solved),
          per_solved(total.wall_s, solved)};
}

} // namespace arbiter::score
