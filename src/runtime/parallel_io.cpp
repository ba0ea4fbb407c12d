#include "parallel_io.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <thread>
#include <vector>

namespace arbiter::runtime {

namespace {

constexpr uint64_t k_max_syscall_bytes = uint64_t{1} << 30;

unsigned configured_limit() {
  if (const char* text = std::getenv("ARBITER_IO_THREADS"); text != nullptr)
    if (const int wanted = std::atoi(text); wanted > 0) return static_cast<unsigned>(wanted);
  return std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
}

/// One thread's part: the syscall repeated until every byte moved. 0 or an errno.
template <typename Move>
int move_fully(uint64_t offset, uint64_t nbytes, Move move) {
  uint64_t done = 0;
  while (done < nbytes) {
    const ssize_t got = move(offset + done, done, std::min(nbytes - done, k_max_syscall_bytes));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return errno != 0 ? errno : EIO;
    if (got == 0) return EIO; // a read past the end: the file shrank after it was opened
    done += static_cast<uint64_t>(got);
  }
  return 0;
}

template <typename Move>
int in_chunks(uint64_t offset, uint64_t nbytes, Move move) {
  const unsigned threads = io_threads(nbytes);
  if (threads == 1) return move_fully(offset, nbytes, move);
  std::atomic<int> first_error{0};
  {
    std::vector<std::jthread> workers;
    workers.reserve(threads);
    for (unsigned part = 0; part < threads; ++part) {
      const uint64_t begin = nbytes * part / threads, end = nbytes * (part + 1) / threads;
      workers.emplace_back([&, begin, end] {
        const int error = move_fully(offset + begin, end - begin,
                                     [&](uint64_t at, uint64_t done, uint64_t count) { return move(at, begin + done, count); });
        int expected = 0;
        if (error != 0) first_error.compare_exchange_strong(expected, error);
      });
    }
  } // joined here
  return first_error.load();
}

} // namespace

unsigned io_threads(uint64_t nbytes) {
  if (nbytes < k_parallel_io_bytes) return 1;
  static const unsigned limit = configured_limit();
  const uint64_t by_size = nbytes / (uint64_t{16} << 20);
  return static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>(limit, by_size)));
}

int pread_all(int fd, uint64_t offset, void* dst, uint64_t nbytes) {
  auto* out = static_cast<unsigned char*>(dst);
  return in_chunks(offset, nbytes, [&](uint64_t at, uint64_t done, uint64_t count) {
    return ::pread(fd, out + done, static_cast<size_t>(count), static_cast<off_t>(at));
  });
}

int pwrite_all(int fd, uint64_t offset, const void* src, uint64_t nbytes) {
  const auto* in = static_cast<const unsigned char*>(src);
  return in_chunks(offset, nbytes, [&](uint64_t at, uint64_t done, uint64_t count) {
    return ::pwrite(fd, in + done, static_cast<size_t>(count), static_cast<off_t>(at));
  });
}

} // namespace arbiter::runtime
