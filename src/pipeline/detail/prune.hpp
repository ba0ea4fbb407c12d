#pragma once
/// Disk use of a campaign (docs/protocol.md, "Artifacts"): once an evaluation is judged its large
/// tensor bundles have served their purpose (the verdict, findings and comparisons are stored), and
/// once a problem's solutions are all judged so have its reference's. At GPU shapes they run to
/// gigabytes per evaluation; --keep-outputs keeps them.
#include <cstdint>
#include <filesystem>

namespace arbiter::pipeline::detail {

/// Bundles at or above this size are removed; smaller ones (every CPU-sized run's) are kept.
inline constexpr std::uintmax_t k_prune_bundle_bytes = 16u << 20;

struct pruned {
  std::size_t files = 0;
  std::uintmax_t bytes = 0;
};

/// Removes the *.arbb files of at least k_prune_bundle_bytes under dir.
pruned prune_bundles(const std::filesystem::path& dir);

/// Prunes a reference's bundles and, if any went, its events.jsonl too, so that a later run of
/// the campaign makes the reference again instead of finding it cached without its data.
pruned prune_reference(const std::filesystem::path& dir);

} // namespace arbiter::pipeline::detail
