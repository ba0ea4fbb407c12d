#include "detail/prune.hpp"

#include "arbiter/common/log.hpp"

#include <vector>

namespace arbiter::pipeline::detail {

namespace fs = std::filesystem;

pruned prune_bundles(const fs::path& dir) {
  pruned out;
  std::error_code ec;
  std::vector<fs::path> doomed;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() != ".arbb") continue;
    const auto size = it->file_size(ec);
    if (ec || size < k_prune_bundle_bytes) continue;
    doomed.push_back(it->path());
    out.bytes += size;
  }
  for (const auto& file : doomed)
    if (fs::remove(file, ec)) ++out.files;
    else ARB_WARN("prune", "cannot remove {}: {}", file.string(), ec.message());
  return out;
}

pruned prune_reference(const fs::path& dir) {
  const pruned out = prune_bundles(dir);
  std::error_code ec;
  if (out.files > 0) fs::remove(dir / "events.jsonl", ec);
  if (out.files > 0)
    ARB_DEBUG("prune", "{}: {} bundles, {:.1f} GiB", dir.string(), out.files, static_cast<double>(out.bytes) / (1u << 30));
  return out;
}

} // namespace arbiter::pipeline::detail
