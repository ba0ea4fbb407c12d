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
          {"api_kernel_launches", w.api_kernel_launches},
          {"api_transfers", w.api_transfers},
          {"captures", w.captures},
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
  return {{"name", k.name},   {"stream", r.stream},     {"context", r.context}, {"device", r.device}, {"grid", r.grid},
          {"block", r.block}, {"start_ns", r.start_ns}, {"end_ns", r.end_ns},   {"window", k.window}};
}

nlohmann::json outside_json(const evidence& e) {
  auto after = nlohmann::json::array();
  for (const auto& g : e.outside_gaps)
    after.push_back({{"label", g.label}, {"group", g.group}, {"kernels", g.kernels}, {"busy_ns", g.busy_ns}});
  return {{"kernels", e.outside_kernels}, {"busy_ns", e.outside_busy_ns}, {"after", std::move(after)}};
}

nlohmann::json witness_json(const witness_stats& w) {
  return {{"checks", w.checks},
          {"callbacks_disabled", w.callbacks_disabled},
          {"notes", w.notes},
          {"forged_markers", w.forged_markers},
          {"refused_claims", w.refused_claims}};
}

} // namespace

std::string evidence_json(const evidence& e) {
  nlohmann::json doc{{"version", k_evidence_version},
                     {"contexts", e.contexts},
                     {"streams_created", e.streams_created},
                     {"modules_loaded", e.modules_loaded},
                     {"graphs",
                      {{"created", e.graphs_created},
                       {"instantiated", e.graphs_instantiated},
                       {"launched", e.graphs_launched},
                       {"captures", e.captures}}},
                     {"totals",
                      {{"kernels", e.kernels},
                       {"harness_kernels", e.harness_kernels},
                       {"copies", e.copies},
                       {"memsets", e.memsets},
                       {"dropped_records", e.dropped_records}}},
                     {"threads_max", e.threads_max},
                     {"windows_dropped", e.windows_dropped},
                     {"kernels_truncated", e.kernels_truncated},
                     {"outside_windows", outside_json(e)},
                     {"witness", witness_json(e.witness)},
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
