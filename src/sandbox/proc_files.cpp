#include "detail/proc_files.hpp"

#include <fstream>
#include <sstream>

namespace arbiter::sandbox::detail {

std::string read_proc(pid_t pid, const char* file) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/" + file, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::optional<proc_stat> read_proc_stat(pid_t pid) {
  std::string const stat = read_proc(pid, "stat");
  auto const close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  proc_stat parsed;
  if (!(fields >> parsed.state >> parsed.parent >> parsed.group)) return std::nullopt;
  return parsed;
}

std::string status_value(const std::string& status, const std::string& key) {
  std::istringstream lines(status);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(key + ":", 0) == 0) return line.substr(key.size() + 1);
  return {};
}

std::optional<int> innermost_pid(const std::string& status) {
  std::istringstream ids(status_value(status, "NSpid"));
  std::optional<int> last;
  for (int id = 0; ids >> id;) last = id;
  return last;
}

std::vector<pid_t> read_pids(const std::string& procs_file) {
  std::vector<pid_t> pids;
  std::ifstream text(procs_file);
  for (pid_t pid = 0; text >> pid;) pids.push_back(pid);
  return pids;
}

} // namespace arbiter::sandbox::detail
