#pragma once
/// Typed reads from a parsed TOML table with errors that name the file, the key and what was
/// expected. Keeps toml++ out of every other header.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace arbiter::catalog {

/// Parses a TOML file into JSON (tables → objects, arrays → arrays, dates → strings).
/// Throws config_error "<file>:<line>:<col>: <parser message>" on a syntax error.
nlohmann::json read_toml(const std::filesystem::path& file);

/// Accessors over the JSON form; `where` is "<file>" and `key` a dotted path for messages.
class toml_view {
 public:
  toml_view(const nlohmann::json& table, std::string where, std::string prefix = "");

  std::optional<std::string> str(const std::string& key) const;
  std::optional<std::int64_t> integer(const std::string& key) const;
  std::optional<double> number(const std::string& key) const; ///< integers accepted
  std::optional<bool> boolean(const std::string& key) const;
  std::vector<std::string> strings(const std::string& key) const; ///< absent → empty
  std::vector<double> numbers(const std::string& key) const;      ///< absent → empty
  std::optional<toml_view> table(const std::string& key) const;
  const nlohmann::json& json() const { return m_table; }

 private:
  const nlohmann::json* get(const std::string& key, const char* expected, bool (*ok)(const nlohmann::json&)) const;
  [[noreturn]] void fail(const std::string& key, const char* expected) const;

  const nlohmann::json& m_table;
  std::string m_where;
  std::string m_prefix;
};

} // namespace arbiter::catalog
