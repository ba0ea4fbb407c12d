#pragma once
/// What candidate code — the candidate run and the build stage, which imports it — may see and
/// write (docs/protocol.md, "Sandbox"): it runs as an unprivileged user, with no network, a private
/// /tmp, the grader's files hidden and only its own folder, its model's cache and the inputs it
/// needs bound back. The orchestrator prepares ownership first.
#include "arbiter/sandbox/process.hpp"
#include "detail/jobs.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

namespace arbiter::pipeline::detail {

/// The paths of one sandboxed process besides the grader's (which come from ctx.options).
struct candidate_paths {
  std::filesystem::path data_dir;  ///< <db>.d or check's data folder: hidden
  std::filesystem::path own_dir;   ///< its evaluation or build folder: bound back writable
  std::filesystem::path cache_dir; ///< its model's build caches: bound back writable
  std::filesystem::path exchange;  ///< the reference's inputs, read-only; empty for a build
};

/// Sandbox uids: one per model, in [base, base + span), outside the range of system and login users.
inline constexpr uid_t k_sandbox_uid_base = 2'000'000;
inline constexpr uid_t k_sandbox_uid_span = 1'000'000;

/// Size of each scratch tmpfs (/tmp, /var/tmp, /dev/shm, /run/lock) a candidate gets.
inline constexpr std::uint64_t k_scratch_max_bytes = 512ull << 20;
/// What a candidate may leave in its work folder; $ARBITER_MAX_WORK_BYTES overrides it. Past it the
/// largest files are removed and process_result::limit_exceeded says so.
inline constexpr std::uint64_t k_max_work_bytes = 1ull << 30;
/// pids.max of an evaluation's cgroup, where the host delegates the pids controller.
inline constexpr std::uint64_t k_sandbox_pids_max = 4096;

/// The uid a model's processes run as, from its cache folder: stable per model, distinct across
/// models (a collision only shares what the mount namespace already hides), so one model's build
/// cannot read another's /proc/<pid>/root, environ or memory while both run.
uid_t sandbox_uid_for(const std::filesystem::path& model_cache);

/// The isolation of a candidate process; disabled when ctx.options.sandbox is false. Hidden: the
/// data folder (other evaluations, logs, references' expected outputs), the cache root, the
/// suite, the solutions folder, the database file and, unless it is a top-level folder or holds
/// the interpreter, the database's folder. Scratch (size-capped): /tmp, /var/tmp, /dev/shm,
/// /run/lock. Its work folder is capped at max_work_bytes; its cgroup at k_sandbox_pids_max
/// processes and, on the cpu, one core's quota.
sandbox::isolation candidate_isolation(const job_context& ctx, const candidate_paths& paths);

/// Before the start, as root: own_dir traversable, its work/ (and for a candidate outputs/ and
/// timing/; for a build events.jsonl) and the cache owned by the sandbox user. A candidate's
/// events.jsonl stays the orchestrator's (use_channel). Does nothing when the isolation is off or
/// arbiter is not root. Throws io_error with the path.
void prepare_candidate_files(const sandbox::isolation& isolation, const candidate_paths& paths, bool candidate);

/// Once the reference has finished and its sealed sets are in own_dir/sealed, before the gate
/// opens, as root: the sealed folders owned by the sandbox user (the runner empties them; the
/// hard-linked files stay read-only to it) and the exchange readable by all. Does nothing when
/// the isolation is off or arbiter is not root. Throws io_error with the path.
void receive_reference_files(const sandbox::isolation& isolation, const std::filesystem::path& own_dir,
                             const std::filesystem::path& exchange);

/// For an evaluation's details: {"requested", "applied", "uid", "note", "engine", "layers",
/// "missing", "limit_exceeded"}; the note says what was done without (or "disabled by
/// --no-sandbox"), missing the optional layers done without, limit_exceeded the cap reached.
nlohmann::json sandbox_details(const sandbox::isolation& isolation, const sandbox::process_result& process);

} // namespace arbiter::pipeline::detail
