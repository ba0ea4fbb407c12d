#include "arbiter/doctor/doctor.hpp"

#include "arbiter/common/error.hpp"
#include "detail/command.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <sstream>

namespace arbiter::doctor {
namespace {

/// Prints one JSON object as its last line; torch's own warnings may precede it.
constexpr const char* probe_script = R"(import json, platform, sys
info = {"version": platform.python_version()}
try:
    import torch
    info["torch_version"] = torch.__version__
    info["torch_cuda_version"] = torch.version.cuda or ""
    info["torch_cuda_available"] = bool(torch.cuda.is_available())
except Exception as e:
    info["error"] = "cannot import torch: %s: %s" % (type(e).__name__, e)
try:
    import triton
    info["triton_version"] = triton.__version__
except Exception:
    pass
print(json.dumps(info))
)";

std::string tail_of(const std::string& text, std::size_t max_bytes = 400) {
  return text.size() <= max_bytes ? text : "..." + text.substr(text.size() - max_bytes);
}

void parse_probe(python_info& info, const std::string& output) {
  auto const json = nlohmann::json::parse(detail::last_line(output));
  info.version = json.value("version", "");
  info.torch_version = json.value("torch_version", "");
  info.torch_cuda_version = json.value("torch_cuda_version", "");
  info.torch_cuda_available = json.value("torch_cuda_available", false);
  info.triton_version = json.value("triton_version", "");
  info.error = json.value("error", "");
}

/// Empty when `python` imports torch, else why not.
std::string refusal(const std::string& python) {
  auto const info = probe_python(python);
  if (!info.error.empty()) return info.error;
  if (info.torch_version.empty()) return "no torch";
  return {};
}

} // namespace

python_info probe_python(const std::string& python) {
  python_info info;
  info.path = python;
  auto const out = detail::run_command({python, "-c", probe_script}, true);
  if (!out.ran) {
    info.error = "cannot run " + python + " (" + out.error + ")";
    if (!out.text.empty()) info.error += ": " + tail_of(out.text);
    return info;
  }
  try {
    parse_probe(info, out.text);
  } catch (const nlohmann::json::exception& e) {
    info.error = "unexpected output from " + python + " (" + e.what() + "): " + tail_of(out.text);
  }
  return info;
}

std::string find_python() {
  if (const char* chosen = std::getenv("ARBITER_PYTHON"); chosen != nullptr && *chosen != '\0') {
    std::string const why = refusal(chosen);
    if (!why.empty()) ARB_THROW(config_error, std::string("ARBITER_PYTHON=") + chosen + " cannot be used: " + why);
    return chosen;
  }
  std::ostringstream tried;
  for (std::string const& candidate : {detail::find_on_path("python3"), std::string("/usr/bin/python3")}) {
    if (candidate.empty()) {
      tried << "\n  python3 on PATH: not found";
      continue;
    }
    std::string const why = refusal(candidate);
    if (why.empty()) return candidate;
    tried << "\n  " << candidate << ": " << why;
  }
  ARB_THROW(config_error, "no Python interpreter with torch found (set ARBITER_PYTHON); tried:" + tried.str());
}

} // namespace arbiter::doctor
