#pragma once
/// The files of src/server/assets/, embedded at build time (embed_assets.cmake → assets.cpp).
#include <string_view>
#include <vector>

namespace arbiter::server::detail {

struct asset {
  std::string_view name;  ///< file name under assets/, e.g. "style.css"
  std::string_view bytes; ///< contents
};

/// Every embedded asset, sorted by name.
const std::vector<asset>& assets();
/// The asset with this name, or nullptr.
const asset* find_asset(std::string_view name);
/// Content-Type for a file name's extension.
std::string_view content_type(std::string_view name);

} // namespace arbiter::server::detail
