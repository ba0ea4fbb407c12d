#include "detail/work_cap.hpp"

#include "detail/cgroup.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

namespace arbiter::sandbox::detail {

namespace fs = std::filesystem;

std::string enforce_work_cap(const std::vector<std::string>& folders, std::uint64_t cap) {
  if (cap == 0) return {};
  struct file {
    fs::path path;
    std::uint64_t bytes;
  };
  std::vector<file> files;
  std::uint64_t total = 0;
  for (auto const& folder : folders) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
         it.increment(ec)) {
      struct stat info {};
      if (::lstat(it->path().c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
      // What it holds on disk: a sparse file counts by its blocks.
      auto const bytes = static_cast<std::uint64_t>(info.st_blocks) * 512;
      files.push_back({it->path(), bytes});
      total += bytes;
    }
  }
  if (total <= cap) return {};
  std::sort(files.begin(), files.end(), [](const file& a, const file& b) { return a.bytes > b.bytes; });
  std::uint64_t left = total, removed_bytes = 0;
  std::size_t removed = 0;
  for (auto const& each : files) {
    if (left <= cap) break;
    std::error_code ec;
    if (!fs::remove(each.path, ec)) continue;
    left -= each.bytes;
    removed_bytes += each.bytes;
    ++removed;
  }
  std::string where;
  for (auto const& folder : folders) where += (where.empty() ? "" : ", ") + folder;
  return "work folder " + where + " held " + human_bytes(total) + ", over its cap of " + human_bytes(cap) + ": " +
      std::to_string(removed) + " file" + (removed == 1 ? "" : "s") + " (" + human_bytes(removed_bytes) + ") removed";
}

} // namespace arbiter::sandbox::detail
