#pragma once
/// The kernel's monotonic clock read without any library in between: the reference against which
/// the timing loop checks the clock its samples use (docs/measurement.md, "Clock check").
///
/// steady_clock::now and clock_gettime live in libstdc++, libc and the vDSO, whose code a solution
/// in the same process can overwrite (threat T4). On x86-64 this reads CLOCK_MONOTONIC through a
/// `syscall` instruction inlined into the runtime itself, so such a patch does not reach it; on
/// other architectures it falls back to libc's syscall(SYS_clock_gettime), which bypasses the vDSO
/// but not libc.

namespace arbiter::runtime {

/// CLOCK_MONOTONIC in seconds, from the kernel; NaN when the call fails.
double kernel_monotonic_seconds() noexcept;

/// How kernel_monotonic_seconds reads the clock: "syscall_instruction" or "libc_syscall".
const char* kernel_clock_source() noexcept;

} // namespace arbiter::runtime
