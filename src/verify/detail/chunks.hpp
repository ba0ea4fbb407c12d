#pragma once
/// Data parallelism for the comparison: an output of a large case holds hundreds of millions of
/// elements, and the judge compares dozens of them per evaluation.
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace arbiter::verify::detail {

/// Threads one comparison may use: the machine's cores, at most 16.
unsigned worker_count();

/// Runs f(begin, end) over contiguous chunks of [0, n), on up to worker_count() threads, and
/// returns the chunks' results in order. A range under a million elements runs on the caller's
/// thread. f must not throw.
template <typename R, typename F>
std::vector<R> map_chunks(std::size_t n, const F& f) {
  constexpr std::size_t k_min_chunk = std::size_t{1} << 20;
  const std::size_t chunks = std::clamp<std::size_t>(n / k_min_chunk, 1, worker_count());
  std::vector<R> results(chunks);
  if (chunks == 1) {
    results[0] = f(std::size_t{0}, n);
    return results;
  }
  {
    std::vector<std::jthread> threads;
    threads.reserve(chunks);
    for (std::size_t chunk = 0; chunk < chunks; ++chunk)
      threads.emplace_back([&, chunk] { results[chunk] = f(chunk * n / chunks, (chunk + 1) * n / chunks); });
  } // joined here
  return results;
}

} // namespace arbiter::verify::detail
