#pragma once
/// The candidate's evidence as the runner handed it over on the channel (docs/protocol.md, "The
/// channel") set against the files it also left in its own, writable folder: a file that no
/// longer says what the channel says was rewritten by the candidate (guard pattern H3).
#include "arbiter/guard/dynamic_rules.hpp"
#include "arbiter/judge/judge.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>

namespace arbiter::judge::detail {

/// The capture index (what outputs/<shape>/timed.json holds) of the shape's first "timed" event;
/// nullopt where the channel has none.
std::optional<nlohmann::json> channel_index(const runner_events& events, std::size_t shape_idx);

/// XXH3 of a file chained over 64 MiB chunks (each chunk's seed the digest so far), 16 hex digits,
/// as the runner's tensors.file_digest computes it for each timed capture; "" when unreadable.
std::string file_digest(const std::filesystem::path& file);

/// Adds to e.channel, per shape: a timing/<shape>.json or outputs/<shape>/timed.json that differs
/// from the channel's record or index, more than one record or index for a shape, a timed shape
/// without a capture index, a capture file whose digest is not the one on the channel (every job the orchestrator writes is a guard job), and a timing file
/// with no record behind it; the last two only for a run that finished (a killed one stops anywhere).
/// Also a channel that passed its size cap, and a timing record whose clock and method the runtime
/// does not write on the device (timing_kind::runtime_writes).
void channel_checks(guard::run_evidence& e, const judge_context& ctx, const candidate_run& run,
                    const std::filesystem::path& eval_dir);

} // namespace arbiter::judge::detail
