#pragma once
// A scratch folder for one test process, named with a prefix and the pid, created on first use and
// removed with everything in it when the process exits (ctest runs each test in its own process).
#include <filesystem>
#include <string>
#include <system_error>
#include <unistd.h>

namespace arbiter::runtime::test_support {

class process_dir {
 public:
  explicit process_dir(const std::string& prefix)
      : m_path(std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()))) {
    std::filesystem::create_directories(m_path);
  }
  ~process_dir() {
    std::error_code ignored; // a folder that cannot be removed must not fail the test that used it
    std::filesystem::remove_all(m_path, ignored);
  }
  process_dir(const process_dir&) = delete;
  process_dir& operator=(const process_dir&) = delete;
  const std::filesystem::path& path() const noexcept { return m_path; }

 private:
  std::filesystem::path m_path;
};

} // namespace arbiter::runtime::test_support
