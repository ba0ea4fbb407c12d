#include "detail/command.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace arbiter::doctor::detail {
namespace {

std::string shell_quote(const std::string& arg) {
  std::string quoted = "'";
  for (char const c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string status_text(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "wait status " + std::to_string(status);
}

} // namespace

command_output run_command(const std::vector<std::string>& argv, bool with_stderr) {
  std::string line;
  for (auto const& arg : argv) line += shell_quote(arg) + " ";
  line += with_stderr ? "</dev/null 2>&1" : "</dev/null 2>/dev/null";
  command_output out;
  FILE* pipe = ::popen(line.c_str(), "re");
  if (pipe == nullptr) {
    out.error = std::string("popen: ") + std::strerror(errno);
    return out;
  }
  std::array<char, 4096> buffer;
  while (std::size_t const got = std::fread(buffer.data(), 1, buffer.size(), pipe)) out.text.append(buffer.data(), got);
  int const status = ::pclose(pipe);
  if (status == -1) {
    out.error = std::string("pclose: ") + std::strerror(errno);
  } else if (status != 0) {
    out.error = status_text(status);
  } else {
    out.ran = true;
  }
  return out;
}

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string const dirs = path != nullptr ? path : "/usr/bin:/bin";
  std::size_t begin = 0;
  while (begin <= dirs.size()) {
    std::size_t end = dirs.find(':', begin);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(begin, end - begin);
    std::string const candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    begin = end + 1;
  }
  return {};
}

std::string last_line(const std::string& text) {
  std::size_t end = text.find_last_not_of("\r\n \t");
  if (end == std::string::npos) return {};
  std::size_t const begin = text.rfind('\n', end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1, end + 1 - (begin == std::string::npos ? 0 : begin + 1));
}

} // namespace arbiter::doctor::detail
