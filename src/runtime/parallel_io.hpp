#pragma once
/// Positioned reads and writes of one large value, cut into chunks that threads move at once: one
/// thread cannot copy a gigabyte in or out of the page cache (or a tmpfs) at the rate the judge
/// and the runner need. Shared by the bundle reader and writer so that both cut the same way.
#include <cstdint>

namespace arbiter::runtime {

/// Threads a transfer of nbytes uses: 1 under k_parallel_io_bytes, else up to the machine's cores
/// (at most 8), at least 16 MiB per thread. ARBITER_IO_THREADS, read once, overrides the upper bound.
unsigned io_threads(uint64_t nbytes);
inline constexpr uint64_t k_parallel_io_bytes = uint64_t{64} << 20;

/// pread / pwrite of nbytes at offset on fd, in io_threads(nbytes) chunks. Returns 0, or the first
/// errno a chunk met (EIO for a read that hit the end of the file early).
int pread_all(int fd, uint64_t offset, void* dst, uint64_t nbytes);
int pwrite_all(int fd, uint64_t offset, const void* src, uint64_t nbytes);

} // namespace arbiter::runtime
