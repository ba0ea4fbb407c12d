#pragma once
/// Calibration: the machine's measured peaks, for fraction-of-peak scoring (docs/measurement.md).
/// A runner process of its own (`python3 -m arbiter_runner calibrate`) times a large copy and a
/// square GEMM per dtype through the runtime's timing loop. The peaks are stored in the hardware
/// row's JSON under `peaks` — {"bytes_per_s", "flops_per_s": {dtype: rate}, "measurements",
/// "skipped", "measured_at", "device"} — keyed by the hardware fingerprint, which calibration never
/// changes.
#include "arbiter/sandbox/process.hpp"
#include "arbiter/store/store.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <istream>
#include <string>

namespace arbiter::pipeline {

/// One calibration run: where it ran, and its peaks or why there are none.
struct peaks_run {
  nlohmann::json peaks;      ///< null when error is set
  std::string error;         ///< one line a person can act on; empty on success
  std::filesystem::path log; ///< the runner's stdout and stderr
};

/// The peaks object from a calibrate-mode event log (one JSON object per line): bytes_per_s from
/// the copy, flops_per_s per measured dtype, every measurement, every skip with its reason.
/// `process` says how the runner ended. Sets error and returns null when the process failed, or
/// when the copy or every GEMM could not be measured.
nlohmann::json read_calibration(std::istream& events, const sandbox::process_result& process, std::string& error);

/// Runs the calibrate process for device ("cpu" | "cuda") with python in work_dir (recreated:
/// job.json, events.jsonl, timing/, log.txt). The process's own failure is returned as error;
/// throws config_error when the runner cannot be located, io_error when work_dir cannot be written.
peaks_run measure_peaks(const std::string& device, const std::string& python, const std::filesystem::path& work_dir,
                        double timeout_s, sandbox::process_runner& runner);

/// measure_peaks, then, on success, the peaks stored into hardware row hardware_id of db.
peaks_run calibrate_hardware(store::store& db, std::int64_t hardware_id, const std::string& device, const std::string& python,
                             const std::filesystem::path& work_dir, double timeout_s, sandbox::process_runner& runner);

/// Whether hardware row hardware_id holds calibrated peaks (a `peaks` object with bytes_per_s).
bool has_peaks(store::store& db, std::int64_t hardware_id);

/// The folder a calibration of the hardware with this fingerprint works in, beside database db:
/// <db>.d/calibration/<first 12 hex digits>/.
std::filesystem::path calibration_dir(const std::string& db, const std::string& fingerprint);

} // namespace arbiter::pipeline
