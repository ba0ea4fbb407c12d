#include "arbiter/doctor/doctor.hpp"

#include "detail/environment_json.hpp"

#include <fmt/format.h>

#include <ostream>

namespace arbiter::doctor {
namespace detail {

nlohmann::json to_json(const environment& env) {
  auto const& py = env.python;
  auto const& gpu = env.gpu;
  return {
      {"python",
       {{"path", py.path},
        {"version", py.version},
        {"torch_version", py.torch_version},
        {"torch_cuda_version", py.torch_cuda_version},
        {"torch_cuda_available", py.torch_cuda_available},
        {"triton_version", py.triton_version},
        {"error", py.error}}},
      {"gpu",
       {{"present", gpu.present},
        {"name", gpu.name},
        {"sm_count", gpu.sm_count},
        {"l2_bytes", gpu.l2_bytes},
        {"memory_bytes", gpu.memory_bytes},
        {"compute_capability", fmt::format("{}.{}", gpu.cc_major, gpu.cc_minor)},
        {"driver_version", gpu.driver_version},
        {"device_count", gpu.device_count},
        {"error", gpu.error}}},
      {"nvcc_version", env.nvcc_version},
      {"cupti_path", env.cupti_path},
      {"host", env.host},
      {"os", env.os},
      {"sandbox",
       {{"root", env.sandbox.root},
        {"engine", env.sandbox.engine},
        {"engine_note", env.sandbox.engine_note},
        {"seccomp", env.sandbox.seccomp},
        {"seccomp_note", env.sandbox.seccomp_note},
        {"cgroup", env.sandbox.cgroup},
        {"cgroup_parent", env.sandbox.cgroup_parent},
        {"cgroup_controllers", env.sandbox.cgroup_controllers},
        {"cgroup_v1", env.sandbox.cgroup_v1}}},
  };
}

} // namespace detail

namespace {

std::string or_none(const std::string& value) { return value.empty() ? "none" : value; }

std::string python_line(const python_info& py) {
  if (py.path.empty()) return "python: none";
  if (!py.error.empty() && py.version.empty()) return fmt::format("python: {} unusable ({})", py.path, py.error);
  std::string line = fmt::format("python: {} ({})", py.path, py.version);
  if (!py.error.empty()) return line + ", " + py.error;
  line += fmt::format(", torch {}", py.torch_version);
  line += py.torch_cuda_version.empty() ? " (cpu build)" : fmt::format(" (CUDA {})", py.torch_cuda_version);
  line += py.torch_cuda_available ? ", cuda available" : ", cuda not available";
  return line + ", triton " + or_none(py.triton_version);
}

std::string gpu_line(const gpu_info& gpu) {
  if (!gpu.present) return fmt::format("gpu: none ({})", gpu.error);
  constexpr double mib = 1024.0 * 1024.0;
  return fmt::format("gpu: {} ({} SMs, {:.0f} MiB L2, {:.0f} GiB), driver {}, compute capability {}.{}", gpu.name, gpu.sm_count,
                     gpu.l2_bytes / mib, gpu.memory_bytes / (mib * 1024.0), gpu.driver_version, gpu.cc_major, gpu.cc_minor);
}

/// "sandbox: bubblewrap (allow-list root), seccomp, cgroup v2 at P (controllers: ...; without v2
/// controller: cpu: v1 at Q, ...)", with why for each layer this machine does without.
std::string sandbox_line(const sandbox::host_isolation& host) {
  if (!host.root) return "sandbox: none (arbiter is not root: candidates run unisolated)";
  std::string line = host.engine == "bubblewrap" ? "sandbox: bubblewrap (allow-list root)"
                                                 : fmt::format("sandbox: native (deny-list view; {})", host.engine_note);
  line += host.seccomp ? ", seccomp" : fmt::format(", no seccomp ({})", host.seccomp_note);
  std::string v1; // the limits the v2 lacks, and where they come from instead
  for (auto const& entry : host.cgroup_v1) v1 += (v1.empty() ? "" : ", ") + entry;
  if (!v1.empty()) v1 = "; without v2 controller: " + v1;
  if (!host.cgroup)
    return line + fmt::format(", no cgroup v2 ({}; survivors die with the PID namespace{})", host.cgroup_parent, v1);
  std::string controllers;
  for (auto const& name : host.cgroup_controllers) controllers += (controllers.empty() ? "" : " ") + name;
  return line +
      fmt::format(", cgroup v2 at {} (controllers: {}{})", host.cgroup_parent, controllers.empty() ? "none" : controllers, v1);
}

} // namespace

void render(std::ostream& out, const environment& env, bool json) {
  if (json) {
    out << detail::to_json(env).dump() << '\n';
    return;
  }
  out << python_line(env.python) << '\n'
      << gpu_line(env.gpu) << '\n'
      << "nvcc: " << or_none(env.nvcc_version) << '\n'
      << "cupti: " << or_none(env.cupti_path) << '\n'
      << "host: " << env.host << '\n'
      << "os: " << env.os << '\n'
      << sandbox_line(env.sandbox) << '\n';
}

} // namespace arbiter::doctor
