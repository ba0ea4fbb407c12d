#include "arbiter/runtime/kernel_clock.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cmath>
#include <ctime>

namespace arbiter::runtime {

namespace {

long raw_clock_gettime(clockid_t clock, timespec* ts) noexcept {
#if defined(__x86_64__)
  // The x86-64 syscall ABI: number in rax, arguments in rdi and rsi; the kernel clobbers rcx and
  // r11. Inlined here so no patchable library code runs between the runtime and the kernel.
  long result = SYS_clock_gettime;
  asm volatile("syscall" : "+a"(result) : "D"(static_cast<long>(clock)), "S"(ts) : "rcx", "r11", "memory");
  return result;
#else
  return syscall(SYS_clock_gettime, clock, ts) == 0 ? 0 : -1;
#endif
}

} // namespace

double kernel_monotonic_seconds() noexcept {
  timespec ts{};
  if (raw_clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return NAN;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

const char* kernel_clock_source() noexcept {
#if defined(__x86_64__)
  return "syscall_instruction";
#else
  return "libc_syscall";
#endif
}

} // namespace arbiter::runtime
