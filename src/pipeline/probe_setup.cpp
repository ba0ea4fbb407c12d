#include "detail/probe_setup.hpp"

#include "arbiter/common/log.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>

namespace arbiter::pipeline::detail {

namespace fs = std::filesystem;

namespace {

// "" when the library loads (its libcupti resolves), else dlerror's reason. Once per path.
std::string load_failure(const fs::path& library) {
  static std::mutex mutex;
  static std::map<fs::path, std::string> known;
  const std::lock_guard lock(mutex);
  if (const auto it = known.find(library); it != known.end()) return it->second;
  std::string failure;
  if (void* handle = ::dlopen(library.c_str(), RTLD_LAZY | RTLD_LOCAL)) ::dlclose(handle);
  else failure = ::dlerror();
  if (!failure.empty()) ARB_WARN("probe", "{} does not load: {}", library.string(), failure);
  return known.emplace(library, failure).first->second;
}

// On by default on cuda (docs/probe.md): ARBITER_PROBE=off turns it off; ARBITER_PROBE_LIB names
// another library (or "off").
fs::path library_path(const job_context& ctx, std::string& why_not) {
  if (const char* configured = std::getenv("ARBITER_PROBE_LIB")) {
    const std::string value = configured;
    if (value.empty() || value == "off") {
      why_not = "disabled by ARBITER_PROBE_LIB";
      return {};
    }
    return fs::absolute(value);
  }
  if (const char* wanted = std::getenv("ARBITER_PROBE"); wanted && std::string(wanted) == "off") {
    why_not = "disabled by ARBITER_PROBE=off";
    return {};
  }
  return ctx.paths.runtime_lib.parent_path() / "libarbiter_probe.so";
}

} // namespace

probe_setup probe_for(const job_context& ctx, const fs::path& out) {
  probe_setup probe;
  if (ctx.device != "cuda") return probe;
  std::string why_not;
  const fs::path library = library_path(ctx, why_not);
  if (library.empty()) {
    probe.status = "unavailable: " + why_not;
    return probe;
  }
  if (!fs::exists(library)) {
    probe.status = "unavailable: " + library.string() + " not built (CUPTI not found at build time)";
    return probe;
  }
  if (const std::string failure = load_failure(library); !failure.empty()) {
    probe.status = "unavailable: " + failure;
    return probe;
  }
  probe.library = fs::canonical(library);
  probe.out = out;
  probe.status = "enabled";
  return probe;
}

void apply_probe(const probe_setup& probe, sandbox::process_spec& spec) {
  if (!probe.enabled()) return;
  spec.env["CUDA_INJECTION64_PATH"] = probe.library.string();
  spec.env["ARBITER_PROBE_OUT"] = probe.out.string();
  if (spec.sandbox.enabled) spec.sandbox.exposed_paths.push_back(probe.library.parent_path().string());
}

} // namespace arbiter::pipeline::detail
