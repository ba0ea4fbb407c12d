#pragma once
/// What the fuzz targets share: the fuzzer's bytes as a file, for the readers that take a path.
/// One memory-backed file per process (memfd), rewritten for each input and named through
/// /proc/self/fd, so that a reader opens it afresh as it opens a runner's file.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace arbiter::fuzz {

/// The bytes as a file; returns its path, valid until the next call.
inline std::string as_file(const std::uint8_t* data, std::size_t size) {
  static const int fd = memfd_create("arbiter-fuzz", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, 0) != 0) std::abort();
  for (std::size_t done = 0; done < size;) {
    const ssize_t wrote = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (wrote <= 0) std::abort();
    done += static_cast<std::size_t>(wrote);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

} // namespace arbiter::fuzz
