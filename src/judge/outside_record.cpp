// The outside clock's record (include/arbiter/judge/outside_record.hpp): written by the pipeline's
// outside clock, read back by the judge and by `arbiter rejudge` from a folder.
#include "arbiter/judge/outside_record.hpp"

#include "arbiter/common/error.hpp"
#include "arbiter/common/json_field.hpp"

#include <fstream>

namespace arbiter::judge {

namespace fs = std::filesystem;

std::optional<outside_batch> find_batch(const outside_record& record, std::size_t shape_idx, const std::string& label) {
  for (const auto& batch : record.batches)
    if (batch.shape_idx == shape_idx && batch.label == label && batch.finished) return batch;
  return std::nullopt;
}

nlohmann::json to_json(const outside_record& record) {
  nlohmann::json batches = nlohmann::json::array();
  for (const auto& b : record.batches) {
    batches.push_back(
        {{"shape_idx", b.shape_idx}, {"label", b.label}, {"calls", b.calls}, {"wall_ms", b.wall_ms}, {"finished", b.finished}});
    if (b.cpu_ms) batches.back()["cpu_ms"] = *b.cpu_ms;
    if (b.busy_ms) batches.back()["busy_ms"] = *b.busy_ms;
    if (b.threads) batches.back()["threads"] = *b.threads;
    if (b.threads_busy_ms) batches.back()["threads_busy_ms"] = *b.threads_busy_ms;
    if (!b.busy_threads.empty()) batches.back()["busy_threads"] = b.busy_threads;
  }
  return {{"version", 1}, {"batches", batches}, {"faults", record.faults}};
}

outside_record outside_from_json(const nlohmann::json& doc) {
  outside_record record;
  // Written by the orchestrator, but read back by rejudge from a folder: every member by its type.
  const auto number = [](const nlohmann::json& b, const char* key) -> std::optional<double> {
    const auto it = b.find(key);
    return it != b.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
  };
  const auto batches = doc.find("batches");
  for (const auto& b : batches != doc.end() && batches->is_array() ? *batches : nlohmann::json::array()) {
    if (!b.is_object()) continue;
    const auto finished = b.find("finished");
    record.batches.push_back({integer_or<std::size_t>(b, "shape_idx", 0), string_or(b, "label"), integer_or<int>(b, "calls", 0),
                              number(b, "wall_ms").value_or(0.0),
                              finished != b.end() && finished->is_boolean() && finished->get<bool>(), number(b, "cpu_ms"),
                              number(b, "busy_ms")});
    if (const auto threads = number(b, "threads")) record.batches.back().threads = static_cast<int>(*threads);
    record.batches.back().threads_busy_ms = number(b, "threads_busy_ms");
    for (const auto& t : b.value("busy_threads", nlohmann::json::array()))
      if (t.is_string()) record.batches.back().busy_threads.push_back(t.get<std::string>());
  }
  const auto faults = doc.find("faults");
  for (const auto& f : faults != doc.end() && faults->is_array() ? *faults : nlohmann::json::array())
    if (f.is_string()) record.faults.push_back(f.get<std::string>());
  return record;
}

void write_outside(const fs::path& file, const outside_record& record) {
  std::ofstream out(file, std::ios::trunc);
  if (!(out << to_json(record).dump(1) << '\n')) ARB_THROW(io_error, "cannot write " + file.string());
}

std::optional<outside_record> read_outside(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  const auto doc = nlohmann::json::parse(in, nullptr, false);
  if (!doc.is_object() || !doc.contains("batches")) return std::nullopt;
  return outside_from_json(doc);
}

} // namespace arbiter::judge
