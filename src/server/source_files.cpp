// Reading solution sources, logs and artifact listings for the pages.
#include "detail/source_files.hpp"

#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace arbiter::server::detail {

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t k_max_source_bytes = 256 * 1024;

std::string language_of(const fs::path& file) {
  const std::string ext = file.extension().string();
  if (ext == ".py") return "python";
  if (ext == ".cu" || ext == ".cuh") return "cuda";
  if (ext == ".cpp" || ext == ".cc" || ext == ".h" || ext == ".hpp") return "cpp";
  return "text";
}

fs::path entry_file(const fs::path& dir) {
  for (const char* name : {"kernel.py", "kernel.cu"})
    if (fs::is_regular_file(dir / name)) return dir / name;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file() && language_of(entry.path()) != "text") return entry.path();
  return {};
}

} // namespace

json read_solution_source(const std::string& solution_dir) {
  const fs::path file = solution_dir.empty() ? fs::path() : entry_file(solution_dir);
  if (file.empty()) return {{"file", nullptr}, {"error", "no source found in " + solution_dir}};
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) return {{"file", nullptr}, {"error", file.string() + ": " + ec.message()}};
  std::ifstream in(file, std::ios::binary);
  std::string text(static_cast<std::size_t>(std::min(size, k_max_source_bytes)), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (!in) return {{"file", nullptr}, {"error", file.string() + ": unreadable"}};
  return {{"file", file.filename().string()},
          {"path", file.string()},
          {"language", language_of(file)},
          {"text", text},
          {"truncated", size > k_max_source_bytes}};
}

json read_log_tail(const std::string& artifacts_dir, std::size_t lines) {
  const fs::path path = fs::path(artifacts_dir) / "log.txt";
  std::ifstream in(path);
  if (artifacts_dir.empty() || !in) return {{"path", path.string()}, {"error", "no log at " + path.string()}};
  std::deque<std::string> tail;
  std::size_t total = 0;
  for (std::string line; std::getline(in, line); ++total) {
    tail.push_back(std::move(line));
    if (tail.size() > lines) tail.pop_front();
  }
  return {{"path", path.string()}, {"lines", tail}, {"total_lines", total}};
}

json list_artifacts(const std::string& artifacts_dir) {
  json out = json::array();
  std::error_code ec;
  if (artifacts_dir.empty()) return out;
  for (const auto& entry : fs::directory_iterator(artifacts_dir, ec)) {
    const bool dir = entry.is_directory(ec);
    out.push_back({{"name", entry.path().filename().string() + (dir ? "/" : "")},
                   {"bytes", dir ? json(nullptr) : json(entry.file_size(ec))}});
  }
  std::sort(out.begin(), out.end(), [](const json& a, const json& b) { return a["name"] < b["name"]; });
  return out;
}

} // namespace arbiter::server::detail
