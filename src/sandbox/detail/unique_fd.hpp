#pragma once
/// Owns one file descriptor; closes it on destruction. Private to the sandbox.
#include <unistd.h>

#include <utility>

namespace arbiter::sandbox::detail {

class unique_fd {
 public:
  unique_fd() = default;
  explicit unique_fd(int fd) : m_fd(fd) {}
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  unique_fd(unique_fd&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
  unique_fd& operator=(unique_fd&& other) noexcept {
    if (this != &other) {
      reset();
      m_fd = std::exchange(other.m_fd, -1);
    }
    return *this;
  }
  ~unique_fd() { reset(); }

  int get() const { return m_fd; }
  bool valid() const { return m_fd >= 0; }
  /// Gives up ownership without closing.
  int release() noexcept { return std::exchange(m_fd, -1); }
  /// Closes the descriptor now; a close error is ignored (nothing useful can be done with it).
  void reset() noexcept {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = -1;
  }

 private:
  int m_fd = -1;
};

} // namespace arbiter::sandbox::detail
