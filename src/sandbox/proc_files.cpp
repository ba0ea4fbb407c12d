#include "detail/proc_files.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
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

std::vector<pid_t> numbered_entries(const std::string& folder) {
  std::vector<pid_t> ids;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.empty() && name.size() < 10 && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      ids.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return ids;
}

std::vector<pid_t> read_tids(pid_t pid) { return numbered_entries("/proc/" + std::to_string(pid) + "/task"); }

std::optional<std::uint64_t> read_thread_run_ns(pid_t pid, pid_t tid) {
  const std::string task = "task/" + std::to_string(tid) + "/";
  std::istringstream schedstat(read_proc(pid, (task + "schedstat").c_str()));
  if (std::uint64_t run_ns = 0; schedstat >> run_ns) return run_ns;
  const std::string stat = read_proc(pid, (task + "stat").c_str());
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  std::string skipped;
  for (int field = 3; field < 14 && fields >> skipped; ++field) { // state .. cmajflt: fields 3 to 13
  }
  std::uint64_t utime = 0, stime = 0;
  if (!(fields >> utime >> stime)) return std::nullopt;
  static const long ticks = ::sysconf(_SC_CLK_TCK);
  return (utime + stime) * (1'000'000'000ULL / static_cast<std::uint64_t>(ticks > 0 ? ticks : 100));
}

} // namespace arbiter::sandbox::detail
