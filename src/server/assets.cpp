// Lookup over the embedded assets (the table itself is generated: embed_assets.cmake).
#include "detail/assets.hpp"

#include <algorithm>

namespace arbiter::server::detail {

const asset* find_asset(std::string_view name) {
  const auto& table = assets();
  const auto it = std::find_if(table.begin(), table.end(), [&](const asset& a) { return a.name == name; });
  return it == table.end() ? nullptr : &*it;
}

std::string_view content_type(std::string_view name) {
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".svg")) return "image/svg+xml";
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  return "application/octet-stream";
}

} // namespace arbiter::server::detail
