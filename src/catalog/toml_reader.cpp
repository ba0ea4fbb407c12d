#include "arbiter/catalog/toml_reader.hpp"

#include "arbiter/common/error.hpp"

#include <toml++/toml.h>

#include <sstream>

namespace arbiter::catalog {

namespace {

nlohmann::json to_json(const toml::node& node);

nlohmann::json table_to_json(const toml::table& table) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : table) out[std::string(key.str())] = to_json(value);
  return out;
}

nlohmann::json to_json(const toml::node& node) {
  if (const auto* t = node.as_table()) return table_to_json(*t);
  if (const auto* a = node.as_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& element : *a) out.push_back(to_json(element));
    return out;
  }
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* i = node.as_integer()) return i->get();
  if (const auto* f = node.as_floating_point()) return f->get();
  if (const auto* b = node.as_boolean()) return b->get();
  std::ostringstream text; // dates and times
  node.visit([&](const auto& value) { text << value; });
  return text.str();
}

} // namespace

nlohmann::json read_toml(const std::filesystem::path& file) {
  try {
    return table_to_json(toml::parse_file(file.string()));
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    ARB_THROW(config_error,
              file.string() + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) + ": " +
                  std::string(e.description()));
  }
}

toml_view::toml_view(const nlohmann::json& table, std::string where, std::string prefix)
    : m_table(table), m_where(std::move(where)), m_prefix(std::move(prefix)) {}

void toml_view::fail(const std::string& key, const char* expected) const {
  ARB_THROW(config_error, m_where + ": key '" + m_prefix + key + "': expected " + expected + ", found " + m_table.at(key).dump());
}

const nlohmann::json* toml_view::get(const std::string& key, const char* expected, bool (*ok)(const nlohmann::json&)) const {
  const auto it = m_table.find(key);
  if (it == m_table.end()) return nullptr;
  if (!ok(*it)) fail(key, expected);
  return &*it;
}

std::optional<std::string> toml_view::str(const std::string& key) const {
  const auto* v = get(key, "a string", [](const nlohmann::json& j) { return j.is_string(); });
  return v ? std::optional(v->get<std::string>()) : std::nullopt;
}

std::optional<std::int64_t> toml_view::integer(const std::string& key) const {
  const auto* v = get(key, "an integer", [](const nlohmann::json& j) { return j.is_number_integer(); });
  return v ? std::optional(v->get<std::int64_t>()) : std::nullopt;
}

std::optional<double> toml_view::number(const std::string& key) const {
  const auto* v = get(key, "a number", [](const nlohmann::json& j) { return j.is_number(); });
  return v ? std::optional(v->get<double>()) : std::nullopt;
}

std::optional<bool> toml_view::boolean(const std::string& key) const {
  const auto* v = get(key, "true or false", [](const nlohmann::json& j) { return j.is_boolean(); });
  return v ? std::optional(v->get<bool>()) : std::nullopt;
}

std::vector<std::string> toml_view::strings(const std::string& key) const {
  const auto* v = get(key, "an array of strings", [](const nlohmann::json& j) {
    if (!j.is_array()) return false;
    for (const auto& e : j)
      if (!e.is_string()) return false;
    return true;
  });
  return v ? v->get<std::vector<std::string>>() : std::vector<std::string>{};
}

std::vector<double> toml_view::numbers(const std::string& key) const {
  const auto* v = get(key, "an array of numbers", [](const nlohmann::json& j) {
    if (!j.is_array()) return false;
    for (const auto& e : j)
      if (!e.is_number()) return false;
    return true;
  });
  return v ? v->get<std::vector<double>>() : std::vector<double>{};
}

std::optional<toml_view> toml_view::table(const std::string& key) const {
  const auto* v = get(key, "a table", [](const nlohmann::json& j) { return j.is_object(); });
  if (v == nullptr) return std::nullopt;
  return toml_view(*v, m_where, m_prefix + key + ".");
}

} // namespace arbiter::catalog
