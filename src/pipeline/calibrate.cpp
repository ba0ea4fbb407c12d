// Calibration: the calibrate runner process, its events read into peaks, the peaks stored with the
// hardware record (docs/measurement.md, "Calibration").
#include "arbiter/pipeline/calibrate.hpp"

#include "arbiter/common/event_names.hpp"
#include "arbiter/common/frames.hpp"
#include "arbiter/common/log.hpp"
#include "detail/runs.hpp"

#include <chrono>
#include <ctime>
#include <fstream>

namespace arbiter::pipeline {

namespace fs = std::filesystem;

namespace {

/// Shorter than a campaign's (a peak is one large call, timed to a few percent), paced on cuda as
/// candidates are: the same warm-up by time and rest after each call.
constexpr timing_options k_calibration_timing{.warmup_calls = 2,
                                              .min_samples = 5,
                                              .max_samples = 500,
                                              .min_time_s = 0.05,
                                              .max_time_s = 1.0,
                                              .target_rel_noise = 0.01,
                                              .cuda_min_time_s = 0.05};

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

struct calibration_events {
  nlohmann::json measurements = nlohmann::json::array();
  nlohmann::json skipped = nlohmann::json::object();
  nlohmann::json error; ///< the runner's error event, if any
  bool done = false;
};

calibration_events parse_events(std::istream& events) {
  calibration_events out;
  for (const auto& event : read_frames(events).events) { // a frame cut short by a kill is left out
    const std::string kind = event.value("event", "");
    if (kind == event_name::done) out.done = true;
    if (kind == event_name::error) out.error = event;
    if (kind != event_name::calibration) continue;
    nlohmann::json m = event;
    m.erase("event");
    const std::string name = m.value("kind", "") == "copy" ? "copy" : m.value("dtype", "?");
    if (m.contains("skipped")) out.skipped[name] = m["skipped"];
    else if (m.value("rate", 0.0) > 0) out.measurements.push_back(std::move(m));
  }
  return out;
}

} // namespace

nlohmann::json read_calibration(std::istream& events, const sandbox::process_result& process, std::string& error) {
  const calibration_events got = parse_events(events);
  const bool clean = process.end == sandbox::process_end::exited && process.exit_code == 0 && got.done;
  if (!got.error.is_null()) error = "the calibration failed: " + detail::error_line(got.error);
  else if (!clean) error = "the calibration process " + sandbox::describe(process) + " before finishing";
  if (!error.empty()) return nullptr;
  nlohmann::json peaks{{"flops_per_s", nlohmann::json::object()},
                       {"measurements", got.measurements},
                       {"skipped", got.skipped},
                       {"measured_at", utc_now()}};
  for (const auto& m : got.measurements) {
    if (m.value("kind", "") == "copy") peaks["bytes_per_s"] = m["rate"];
    if (m.value("kind", "") == "gemm") peaks["flops_per_s"][m.value("dtype", "?")] = m["rate"];
  }
  const auto why = [&](const char* what) {
    const auto it = got.skipped.find(what);
    if (it == got.skipped.end()) return std::string("no result");
    return it->is_string() ? it->get<std::string>() : it->dump();
  };
  if (!peaks.contains("bytes_per_s")) error = "the calibration could not measure the copy bandwidth: " + why("copy");
  else if (peaks["flops_per_s"].empty()) error = "the calibration could not measure any GEMM: " + got.skipped.dump();
  return error.empty() ? peaks : nlohmann::json();
}

peaks_run measure_peaks(const std::string& device, const std::string& python, const fs::path& work_dir, double timeout_s,
                        sandbox::process_runner& runner) {
  eval_options options;
  options.python = python;
  options.timeout_s = timeout_s;
  const runner_paths paths = locate_runner();
  const detail::job_context ctx{options, paths, device, {}};
  fs::remove_all(work_dir);
  fs::create_directories(work_dir / "home");
  const fs::path job_file = work_dir / "job.json";
  detail::write_json(job_file, detail::calibrate_job(ctx, k_calibration_timing, work_dir));
  ARB_INFO("calibrate", "measuring copy bandwidth and GEMM rates on {}", device);
  const auto spec = detail::runner_spec(ctx, "calibrate", job_file, work_dir, work_dir / "home", work_dir / "cache");
  const sandbox::process_result process = runner.run(spec);
  peaks_run run;
  run.log = work_dir / "log.txt";
  std::ifstream events(work_dir / "events.jsonl");
  run.peaks = read_calibration(events, process, run.error);
  if (!run.error.empty()) run.error += " (log: " + run.log.string() + ")";
  else run.peaks["device"] = device;
  return run;
}

peaks_run calibrate_hardware(store::store& db, std::int64_t hardware_id, const std::string& device, const std::string& python,
                             const fs::path& work_dir, double timeout_s, sandbox::process_runner& runner) {
  peaks_run run = measure_peaks(device, python, work_dir, timeout_s, runner);
  if (run.error.empty()) db.merge_hardware_json(hardware_id, nlohmann::json{{"peaks", run.peaks}}.dump());
  return run;
}

bool has_peaks(store::store& db, std::int64_t hardware_id) {
  for (const auto& hw : db.hardware_list()) {
    if (hw.id != hardware_id) continue;
    const auto json = nlohmann::json::parse(hw.record.json, nullptr, false);
    const auto peaks = json.is_object() ? json.find("peaks") : json.end();
    return peaks != json.end() && peaks->is_object() && peaks->contains("bytes_per_s");
  }
  return false;
}

fs::path calibration_dir(const std::string& db, const std::string& fingerprint) {
  return fs::absolute(db + ".d") / "calibration" / fingerprint.substr(0, 12);
}

} // namespace arbiter::pipeline
