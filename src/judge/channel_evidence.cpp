#include "detail/channel_evidence.hpp"
#include "arbiter/common/timing_kind.hpp"

#include "arbiter/common/file.hpp"
#include "detail/timing_record.hpp"

#include <fmt/format.h>
#include <xxhash.h>

#include <fstream>
#include <vector>

namespace arbiter::judge::detail {

namespace fs = std::filesystem;

namespace {

/// A file of the candidate's folder parsed; nullopt when it is missing (discarded when malformed).
std::optional<nlohmann::json> read_folder_json(const fs::path& file) {
  const auto text = try_read_file(file);
  if (!text) return std::nullopt;
  return nlohmann::json::parse(*text, nullptr, false);
}

void count_events(guard::run_evidence& e, const std::vector<const nlohmann::json*>& found, const char* what,
                  const std::string& shape) {
  if (found.size() > 1) e.channel.push_back(fmt::format("{} {} for shape {} on the channel", found.size(), what, shape));
}

// A record whose clock and method the runtime does not write on the device was written by someone
// else: its labels would otherwise reach the leaderboard's account of how it ranks.
void label_checks(guard::run_evidence& e, const runner_events& events, std::size_t shape_idx, const std::string& shape,
                  const std::string& device) {
  const auto record = channel_timing(events, shape_idx);
  if (record && !timing_kind::runtime_writes(device, record->clock, record->method))
    e.channel.push_back(fmt::format("shape {}'s timing record names clock '{}' and method '{}', which the runtime does not "
                                    "write on {}",
                                    shape, record->clock, record->method, device));
}

void timing_checks(guard::run_evidence& e, const runner_events& events, std::size_t shape_idx, const std::string& shape,
                   const fs::path& eval_dir) {
  const std::string rel = "timing/" + std::to_string(shape_idx) + ".json";
  const auto file = read_folder_json(eval_dir / rel);
  const auto records = shape_events(events.timings, shape_idx);
  count_events(e, records, "timing records", shape);
  if (!records.empty()) {
    if (!file || *file != records.front()->value("record", nlohmann::json()))
      e.channel.push_back(rel + " differs from the record the runtime handed over");
  } else if (file && events.done) {
    e.channel.push_back(rel + " has no record from the runtime behind it");
  }
}

void index_checks(guard::run_evidence& e, const runner_events& events, std::size_t shape_idx, const std::string& shape,
                  const fs::path& eval_dir) {
  count_events(e, shape_events(events.timed, shape_idx), "capture indexes", shape);
  const auto index = channel_index(events, shape_idx);
  if (!index) {
    if (events.done && !shape_events(events.timings, shape_idx).empty())
      e.channel.push_back("shape " + shape + " was timed but no capture index came over the channel");
    return;
  }
  // The runner keeps at least the last timed call's output: an empty index checks nothing.
  if (index->empty()) e.channel.push_back("shape " + shape + " was timed but its capture index came back empty");
  const std::string rel = "outputs/" + std::to_string(shape_idx) + "/timed.json";
  const auto file = read_folder_json(eval_dir / rel);
  if (!file || *file != *index) e.channel.push_back(rel + " differs from the capture index the runner handed over");
  for (const auto& capture : *index) {
    if (!capture.is_object() || !capture.contains("digest")) continue;
    const std::string capture_rel = "outputs/" + std::to_string(shape_idx) + "/" + capture.value("file", "");
    if (file_digest(eval_dir / capture_rel) != capture.value("digest", ""))
      e.channel.push_back(capture_rel + " was rewritten after the runner wrote it (its digest on the channel differs)");
  }
}

} // namespace

constexpr std::size_t k_digest_chunk = 64u << 20; // python/arbiter_runner/tensors.py DIGEST_CHUNK

std::string file_digest(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return "";
  std::vector<char> chunk(k_digest_chunk);
  XXH64_hash_t digest = 0;
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    digest = XXH3_64bits_withSeed(chunk.data(), got, digest);
  }
  return fmt::format("{:016x}", digest);
}

std::optional<nlohmann::json> channel_index(const runner_events& events, std::size_t shape_idx) {
  const auto found = shape_events(events.timed, shape_idx);
  if (found.empty()) return std::nullopt;
  const auto it = found.front()->find("captures");
  if (it == found.front()->end() || !it->is_array()) return std::nullopt;
  return *it;
}

void channel_checks(guard::run_evidence& e, const judge_context& ctx, const candidate_run& run, const fs::path& eval_dir) {
  if (run.process.channel_truncated)
    e.channel.push_back(fmt::format("{} bytes written to the channel, past its cap", run.process.channel_bytes));
  for (std::size_t shape_idx = 0; shape_idx < ctx.shapes.size(); ++shape_idx) {
    timing_checks(e, run.events, shape_idx, ctx.shapes[shape_idx].name, eval_dir);
    label_checks(e, run.events, shape_idx, ctx.shapes[shape_idx].name, ctx.device);
    index_checks(e, run.events, shape_idx, ctx.shapes[shape_idx].name, eval_dir);
  }
}

} // namespace arbiter::judge::detail
