#include "arbiter/doctor/doctor.hpp"
#include "detail/commands.hpp"

#include <iostream>
#include <memory>

namespace arbiter::cli::detail {

namespace {

struct doctor_args {
  std::string python;
  bool json = false;
};

int run_doctor(const doctor_args& args) {
  const std::string python = args.python.empty() ? doctor::find_python() : args.python;
  doctor::render(std::cout, doctor::probe_environment(python), args.json);
  return 0;
}

} // namespace

command doctor_command() {
  return {"doctor", "Report what arbiter finds: GPU, driver, CUDA, CUPTI, Python, torch, Triton", [](CLI::App& app) {
            auto args = std::make_shared<doctor_args>();
            app.add_option("--python", args->python, "Python interpreter to inspect")->envname("ARBITER_PYTHON");
            app.add_flag("--json", args->json, "JSON output");
            return [args] { return run_doctor(*args); };
          }};
}

} // namespace arbiter::cli::detail
