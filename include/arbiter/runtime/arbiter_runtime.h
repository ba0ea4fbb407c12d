/* arbiter C runtime: the part of the measurement and exchange protocol that runs inside the
 * reference and candidate processes. Loaded by the Python runner through ctypes, so one build serves
 * every Python version. Plain C ABI: no C++ types cross it, no exceptions escape it.
 *
 * Every function returns 0 on success and a negative code on failure; arb_last_error() then
 * describes the failure (thread-local, valid until the next call on the same thread). */
#ifndef ARBITER_RUNTIME_H
#define ARBITER_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; only these declarations are exported. */
#if defined(__GNUC__)
#define ARB_API __attribute__((visibility("default")))
#else
#define ARB_API
#endif

#define ARB_MAX_NDIM 8

enum arb_value_kind { ARB_KIND_TENSOR = 0, ARB_KIND_INT = 1, ARB_KIND_FLOAT = 2, ARB_KIND_BOOL = 3, ARB_KIND_NONE = 4 };

enum arb_dtype {
  ARB_F32 = 0,
  ARB_F64 = 1,
  ARB_F16 = 2,
  ARB_BF16 = 3,
  ARB_I8 = 4,
  ARB_U8 = 5,
  ARB_I16 = 6,
  ARB_I32 = 7,
  ARB_I64 = 8,
  ARB_BOOL = 9,
  ARB_F8E4M3 = 10,
  ARB_F8E5M2 = 11
};

/* Bytes per element of an arb_dtype; 0 for a code that is none. Inline: the bundle format's one
 * table, for the runtime and for every reader of bundles outside it. */
static inline uint64_t arb_dtype_size(int32_t dtype) {
  switch (dtype) {
  case ARB_F64:
  case ARB_I64:
    return 8;
  case ARB_F32:
  case ARB_I32:
    return 4;
  case ARB_F16:
  case ARB_BF16:
  case ARB_I16:
    return 2;
  case ARB_I8:
  case ARB_U8:
  case ARB_BOOL:
  case ARB_F8E4M3:
  case ARB_F8E5M2:
    return 1;
  default:
    return 0;
  }
}

enum arb_device { ARB_DEVICE_CPU = 0, ARB_DEVICE_CUDA = 1 };

/* Error codes. */
#define ARB_OK 0
#define ARB_E_IO (-1)
#define ARB_E_FORMAT (-2)
#define ARB_E_ARG (-3)
#define ARB_E_CUDA (-4)
#define ARB_E_CALLBACK (-5)
#define ARB_E_INTERNAL (-6) /* a bug in the runtime or out of memory */

ARB_API const char* arb_last_error(void);

/* ---- tensor bundles (.arbb, docs/protocol.md) ---- */
typedef struct arb_writer arb_writer;
typedef struct arb_reader arb_reader;

ARB_API int arb_writer_open(const char* path, arb_writer** out);
/* data points to nbytes of C-contiguous host memory; shape may be NULL when ndim == 0. */
ARB_API int arb_writer_add(arb_writer* w, int32_t kind, int32_t dtype, int32_t ndim, const int64_t* shape, const void* data,
                           uint64_t nbytes);
/* Writes the header count and closes; frees w in every case. */
ARB_API int arb_writer_close(arb_writer* w);

ARB_API int arb_reader_open(const char* path, arb_reader** out);
ARB_API int64_t arb_reader_count(const arb_reader* r);
/* shape must hold ARB_MAX_NDIM entries. */
ARB_API int arb_reader_info(const arb_reader* r, int64_t idx, int32_t* kind, int32_t* dtype, int32_t* ndim, int64_t* shape,
                            uint64_t* nbytes);
/* Copies value idx's bytes into dst (dst_bytes must equal its nbytes). */
ARB_API int arb_reader_copy(arb_reader* r, int64_t idx, void* dst, uint64_t dst_bytes);
/* The file offset of value idx's bytes, for a caller that maps the file instead of copying. */
ARB_API int arb_reader_offset(const arb_reader* r, int64_t idx, uint64_t* offset);
ARB_API void arb_reader_close(arb_reader* r);

/* ---- hashing: XXH3 64-bit of host memory, for input-integrity checks ---- */
ARB_API uint64_t arb_hash_bytes(const void* data, uint64_t nbytes, uint64_t seed);

/* ---- timing ----
 * The timing loop lives here, not in Python, so code in the measured process cannot patch it.
 * fn(user, call_idx) performs one forward call (the runner rotates input sets by call_idx) and
 * returns 0, or nonzero after recording its own error. */
typedef int (*arb_call_fn)(void* user, int64_t call_idx);

typedef struct {
  int32_t device; /* arb_device */
  int32_t warmup_calls;
  int64_t min_samples;
  int64_t max_samples;
  double min_time_s;       /* total measured time before the noise rule may stop */
  double max_time_s;       /* hard cap on total wall time of the sampling loop */
  double target_rel_noise; /* stop once the median's relative standard error is below this */
  uint64_t stream;         /* cuda: the harness stream (cudaStream_t as integer); 0 = legacy default */
  uint64_t l2_flush_bytes; /* 0: default (2 x L2 size on cuda, 64 MiB on cpu) */
  int64_t probe_group;     /* the group the probe's windows carry (the shape index); -1 none */
  arb_call_fn after_call;  /* optional: called with the same call_idx after each call's timed span
                              and probe window, outside all timing (the runner keeps outputs here) */
  double warmup_time_s;    /* after warmup_calls, more warm-up calls (each flushed and synchronised
                              like a sample) until this much wall time has passed; 0: none */
  double rest_ratio;       /* after each timed warm-up call, sample and host-latency call, the host
                              waits this many times its wall time with the device idle; 0: none */
} arb_timing_config;

typedef struct {
  int64_t samples;
  double median_ms, p10_ms, p90_ms, mean_ms, min_ms, max_ms, rel_noise;
  int32_t stop; /* 0 noise, 1 max_time, 2 max_samples */
} arb_timing_result;

/* Fills *out with a campaign's default timing settings on device (arb_device): `arbiter eval`'s,
 * the one set of defaults (include/arbiter/runtime/timing_options.hpp). stream, l2_flush_bytes and
 * after_call are left 0, probe_group -1. */
ARB_API int arb_timing_defaults(int32_t device, arb_timing_config* out);

/* Runs warm-up then samples: flush L2 (outside the timed span), full-device synchronise, start
 * clock, fn, end clock, full-device synchronise. On cuda the clock is a pair of events recorded on
 * config.stream behind the stream hold (launch overhead hidden; docs/measurement.md), and every
 * fourth sample is followed by a host-latency call; samples taken while the device throttled are
 * discarded and counted. On cpu the clock is the monotonic host clock. Each call is a window of
 * the CUPTI probe when the process has one. Writes the JSON of docs/protocol.md to json_path
 * (unless NULL) and fills *out (median_ms: the device time). */
ARB_API int arb_time(const arb_timing_config* config, arb_call_fn fn, void* user, const char* json_path, arb_timing_result* out);
/* The JSON text of the last record arb_time made in this process (the one it wrote to json_path),
 * kept in the runtime's memory so that the runner hands over what the runtime measured, not what a
 * file holds by the time it is read back. Returns the text's length in bytes (0 before any
 * arb_time) and copies min(length, cap) bytes into buf when buf is not NULL; no terminating NUL. */
ARB_API int64_t arb_last_timing(char* buf, int64_t cap);

/* ---- evidence probe windows (docs/probe.md) ----
 * Forwarded to the CUPTI probe when the process was started with it; otherwise no-ops. Both
 * return 1 when forwarded, 0 when there is no probe. */
ARB_API int arb_probe_begin(const char* label, int64_t group, int64_t index, uint64_t stream);
ARB_API int arb_probe_end(void);

/* Full-device synchronise (cuda) — a no-op on cpu. */
ARB_API int arb_device_synchronize(int32_t device);

#ifdef __cplusplus
}
#endif

#endif /* ARBITER_RUNTIME_H */
