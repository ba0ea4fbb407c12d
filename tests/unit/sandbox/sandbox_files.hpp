#pragma once
// What the isolated-process tests share: the sandbox user they run as and reading a file whole.
#include <sys/types.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace arbiter::sandbox::testing {

inline constexpr uid_t sandbox_uid = 65534;

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

} // namespace arbiter::sandbox::testing
