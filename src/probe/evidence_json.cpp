// The evidence file. nlohmann::json stays inside the probe: the library exports only its C ABI.
#include "evidence_json.hpp"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace arbiter::probe {

namespace {

nlohmann::json window_json(const window_stats& w) {
  return {{"label", w.label},
          {"group", w.group},
          {"index", w.index},
          {"begin_ns", w.begin_ns},
          {"end_ns", w.end_ns},
          {"open", w.open()},
          {"launches", w.launches},
          {"harness_kernels", w.harness_kernels},
          {"graph_launches", w.graph_launches},
          {"kernels", w.kernels},
          {"copies", w.copies},
          {"memsets", w.memsets},
          {"busy_ns", w.busy_ns},
          {"span_ns", w.span_ns()},
          {"first_start_ns", w.first_start_ns},
          {"last_end_ns", w.last_end_ns},
          {"streams", w.streams},
          {"harness_stream", w.harness_stream >= 0 ? nlohmann::json(w.harness_stream) : nlohmann::json()},
          {"off_stream_kernels", w.off_stream_kernels},
          {"off_stream_transfers", w.off_stream_transfers},
          {"after_end_kernels", w.after_end_kernels},
          {"after_end_transfers", w.after_end_transfers},
          {"after_end_max_ns", w.after_end_max_ns},
          {"threads", w.threads}};
}

nlohmann::json kernel_json(const kernel_detail& k) {
  const kernel_run& r = k.run;
  return {{"name", k.name},   {"stream", r.stream},     {"context", r.context}, {"device", r.device},
          {"grid", r.grid},   {"block", r.block},       {"start_ns", r.start_ns}, {"end_ns", r.end_ns},
          {"window", k.window}};
}

} // namespace

std::string evidence_json(const evidence& e) {
  nlohmann::json doc{{"version", k_evidence_version},
                     {"contexts", e.contexts},
                     {"streams_created", e.streams_created},
                     {"modules_loaded", e.modules_loaded},
                     {"graphs", {{"created", e.graphs_created}, {"instantiated", e.graphs_instantiated},
                                 {"launched", e.graphs_launched}, {"captures", e.captures}}},
                     {"totals", {{"kernels", e.kernels}, {"harness_kernels", e.harness_kernels}, {"copies", e.copies}, {"memsets", e.memsets},
                                 {"dropped_records", e.dropped_records}}},
                     {"threads_max", e.threads_max},
                     {"windows_dropped", e.windows_dropped},
                     {"kernels_truncated", e.kernels_truncated},
                     {"outside_windows", {{"kernels", e.outside_kernels}, {"busy_ns", e.outside_busy_ns}}},
                     {"errors", e.errors}};
  auto& windows = doc["windows"] = nlohmann::json::array();
  for (const auto& w : e.windows) windows.push_back(window_json(w));
  auto& kernels = doc["kernels"] = nlohmann::json::array();
  for (const auto& k : e.kernel_details) kernels.push_back(kernel_json(k));
  // Names come from the candidate's binaries: invalid UTF-8 must not stop the file.
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool write_atomically(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path temporary = path.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out << text << '\n';
    out.flush();
    if (!out) {
      std::remove(temporary.c_str());
      return false;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    return false;
  }
  return true;
}

} // namespace arbiter::probe
