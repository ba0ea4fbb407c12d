// `arbiter calibrate`: measures this machine's peaks and stores them with its hardware record
// (docs/measurement.md, "Calibration").
#include "arbiter/doctor/doctor.hpp"
#include "arbiter/pipeline/calibrate.hpp"
#include "arbiter/pipeline/campaign.hpp"
#include "detail/commands.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace arbiter::cli::detail {

namespace {

struct calibrate_args {
  std::string device, python, db = "arbiter.db";
  double timeout_s = 600;
  bool json = false;
};

std::string scaled(double rate, const char* unit) {
  static const char* const prefixes[] = {"", "K", "M", "G", "T", "P"};
  int idx = 0;
  for (; rate >= 1000 && idx < 5; ++idx) rate /= 1000;
  return fmt::format("{:.2f} {}{}", rate, prefixes[idx], unit);
}

std::string measurement_line(const nlohmann::json& m) {
  const bool copy = m.value("kind", "") == "copy";
  const std::string what = copy ? "copy" : "gemm " + m.value("dtype", "?");
  const nlohmann::json noise = m.value("rel_noise", nlohmann::json());
  return fmt::format("  {:<22} {:>16}   median {:.4f} ms over {} samples, noise {}\n", what,
                     scaled(m.value("rate", 0.0), copy ? "B/s" : "FLOP/s"), m.value("median_ms", 0.0), m.value("samples", 0),
                     noise.is_number() ? fmt::format("{:.2f}%", 100 * noise.get<double>()) : "n/a");
}

void render(std::ostream& out, const store::hardware_record& hw, const nlohmann::json& peaks, const std::string& db) {
  out << fmt::format("calibrated {} {} (fingerprint {}), stored in {}\n", hw.device, hw.gpu_name.empty() ? hw.host : hw.gpu_name,
                     hw.fingerprint.substr(0, 12), db);
  for (const auto& m : peaks["measurements"]) out << measurement_line(m);
  for (const auto& [name, why] : peaks["skipped"].items())
    out << fmt::format("  {:<22} skipped: {}\n", name, why.is_string() ? why.get<std::string>() : why.dump());
}

int run_calibrate(const calibrate_args& args) {
  const std::string python = args.python.empty() ? doctor::find_python() : args.python;
  const doctor::environment env = doctor::probe_environment(python);
  const std::string device = pipeline::choose_device(args.device, env);
  const store::hardware_record hw = doctor::hardware_for(env, device);
  auto db = store::open_store(args.db);
  const std::int64_t hw_id = db->upsert_hardware(hw);
  sandbox::posix_process_runner runner;
  const auto run = pipeline::calibrate_hardware(*db, hw_id, device, python, pipeline::calibration_dir(args.db, hw.fingerprint),
                                                args.timeout_s, runner);
  if (!run.error.empty()) {
    std::cerr << "calibrate: " << run.error << '\n';
    return static_cast<int>(exit_code::failure);
  }
  if (args.json)
    std::cout << nlohmann::json{{"device", device}, {"fingerprint", hw.fingerprint}, {"hardware_id", hw_id}, {"peaks", run.peaks}}
                     .dump(2)
              << '\n';
  else render(std::cout, hw, run.peaks, args.db);
  return 0;
}

} // namespace

command calibrate_command() {
  return {
      "calibrate", "Measure this machine's copy bandwidth and GEMM rates; store them as its peaks", [](CLI::App& app) {
        auto args = std::make_shared<calibrate_args>();
        add_db_option(app, args->db);
        app.add_option("--device", args->device, "cpu or cuda (default: cuda when a GPU is usable)")->envname("ARBITER_DEVICE");
        app.add_option("--python", args->python, "Python interpreter with torch")->envname("ARBITER_PYTHON");
        app.add_option("--timeout", args->timeout_s, "Wall-clock limit of the calibration process, seconds")
            ->envname("ARBITER_TIMEOUT")
            ->capture_default_str();
        app.add_flag("--json", args->json, "JSON output");
        return [args] { return run_calibrate(*args); };
      }};
}

} // namespace arbiter::cli::detail
