#include "arbiter/doctor/doctor.hpp"

#include "detail/command.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace arbiter::doctor {
namespace {

namespace fs = std::filesystem;

/// "Cuda compilation tools, release 12.4, V12.4.131" — the line that carries the version; the
/// last line ("Build cuda_12.4.r12.4/compiler...") when that is missing.
std::string probe_nvcc() {
  std::string nvcc = detail::find_on_path("nvcc");
  if (nvcc.empty() && ::access("/usr/local/cuda/bin/nvcc", X_OK) == 0) nvcc = "/usr/local/cuda/bin/nvcc";
  if (nvcc.empty()) return {};
  auto const out = detail::run_command({nvcc, "--version"}, false);
  if (!out.ran) return {};
  std::istringstream lines(out.text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(", release ") != std::string::npos) return line;
  }
  return detail::last_line(out.text);
}

/// The first libcupti.so* in `dir`, in name order so that the choice is stable.
std::string first_cupti_in(const fs::path& dir) {
  std::error_code ec;
  std::vector<std::string> found;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string const name = it->path().filename().string();
    if (name.rfind("libcupti.so", 0) == 0) found.push_back(it->path().string());
  }
  if (found.empty()) return {};
  return *std::min_element(found.begin(), found.end());
}

/// "\tlibcupti.so.12 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcupti.so.12"
std::string cupti_from_ldconfig() {
  for (std::string const ldconfig : {"ldconfig", "/sbin/ldconfig"}) {
    auto const out = detail::run_command({ldconfig, "-p"}, false);
    if (!out.ran) continue;
    std::istringstream lines(out.text);
    for (std::string line; std::getline(lines, line);) {
      auto const arrow = line.find(" => ");
      if (line.find("libcupti.so") != std::string::npos && arrow != std::string::npos) return line.substr(arrow + 4);
    }
    return {};
  }
  return {};
}

std::string probe_cupti() {
  for (char const* dir : {"/usr/local/cuda/extras/CUPTI/lib64", "/usr/local/cuda/lib64"}) {
    if (auto found = first_cupti_in(dir); !found.empty()) return found;
  }
  return cupti_from_ldconfig();
}

std::string probe_host() {
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return std::string("unknown (") + std::strerror(errno) + ")";
  return name.data();
}

/// "Linux 6.1.0-18-amd64 x86_64 (Debian GNU/Linux 12 (bookworm))"
std::string probe_os() {
  std::string text;
  struct utsname uts {};
  if (::uname(&uts) == 0) {
    text = std::string(uts.sysname) + " " + uts.release + " " + uts.machine;
  } else {
    text = std::string("unknown (uname: ") + std::strerror(errno) + ")";
  }
  std::ifstream release("/etc/os-release");
  for (std::string line; std::getline(release, line);) {
    if (line.rfind("PRETTY_NAME=", 0) != 0) continue;
    std::string pretty = line.substr(12);
    std::erase(pretty, '"');
    text += " (" + pretty + ")";
  }
  return text;
}

} // namespace

environment probe_environment(const std::string& python) {
  environment env;
  env.python = probe_python(python);
  env.gpu = probe_gpu();
  env.nvcc_version = probe_nvcc();
  env.cupti_path = probe_cupti();
  env.host = probe_host();
  env.os = probe_os();
  env.sandbox = sandbox::describe_host_isolation();
  return env;
}

} // namespace arbiter::doctor
