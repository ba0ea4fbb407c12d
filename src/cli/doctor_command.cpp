#include "arbiter/doctor/doctor.hpp"
#include "arbiter/guard/version.hpp"
#include "detail/commands.hpp"

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <sstream>

namespace arbiter::cli::detail {

namespace {

struct doctor_args {
  std::string python;
  bool json = false;
};

int run_doctor(const doctor_args& args) {
  const std::string python = args.python.empty() ? doctor::find_python() : args.python;
  const auto env = doctor::probe_environment(python);
  if (!args.json) {
    doctor::render(std::cout, env, false);
    std::cout << "guard: " << guard::guard_version() << " (arbiter rejudge re-judges evaluations of other versions)\n";
    return 0;
  }
  std::ostringstream rendered;
  doctor::render(rendered, env, true);
  auto doc = nlohmann::json::parse(rendered.str());
  doc["guard_version"] = guard::guard_version();
  std::cout << doc.dump() << '\n';
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
