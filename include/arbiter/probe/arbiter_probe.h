/* arbiter evidence probe: libarbiter_probe.so, loaded into a runner process by the CUDA driver
 * through CUDA_INJECTION64_PATH before any candidate code runs (docs/probe.md). It records, with
 * CUPTI, every kernel, copy and memset, stream and graph creation, module loads and launches, and
 * attributes them to windows that the runtime opens around each call.
 *
 * The runtime library reaches these functions without linking the probe, by its name (the probe
 * removes CUDA_INJECTION64_PATH from the environment once loaded):
 *   void* probe = dlopen("libarbiter_probe.so", RTLD_NOW | RTLD_NOLOAD);
 *   int (*claim)(uint64_t*) = dlsym(probe, "arbiter_probe_claim");
 * A NULL handle means no probe in this process: nothing to call. Every function is thread-safe.
 *
 * Markers carry the run's token, which the first caller of arbiter_probe_claim receives (the
 * runtime, as the runner loads it, before any candidate code). A marker or a write with another
 * token is ignored and counted in the evidence (witness.forged_markers), and so is every later
 * claim (witness.refused_claims). */
#ifndef ARBITER_PROBE_H
#define ARBITER_PROBE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ARB_PROBE_API __attribute__((visibility("default")))
#else
#define ARB_PROBE_API
#endif

/* Hands the run's marker token to the first caller (0); every later call is refused (-1) and
 * counted. */
ARB_PROBE_API int arbiter_probe_claim(uint64_t* token);

/* Opens a window: every launch, copy and memset whose API call happens until arbiter_probe_end
 * belongs to it. label: "case" (a correctness call), "warmup", "sample" (one timed call), free text
 * otherwise (at most 64 bytes kept); group: shape index (-1 none); index: input set or sample index;
 * stream: the harness's CUstream as an integer (0 = the legacy default stream). Windows are flat:
 * a begin while one is open closes it first. Call it on the thread whose CUDA context the harness
 * uses. Before it opens the window the probe checks that its callbacks are still enabled and
 * enables its activity kinds again; so does arbiter_probe_end after it closes one. Returns 0
 * (-1: a wrong token, nothing done). */
ARB_PROBE_API int arbiter_probe_begin(uint64_t token, const char* label, int64_t group, int64_t index, uint64_t stream);

/* Closes the open window (0 also when none is open). Call it after the call's work has been waited
 * for (the stop event or the device synchronised): kernels of the window that end later count as
 * work escaping the window. Returns 0 (-1: a wrong token). */
ARB_PROBE_API int arbiter_probe_end(uint64_t token);

/* Flushes CUPTI's buffers and writes the evidence JSON to path, atomically (a temporary file in the
 * same folder, then rename). Returns 0, or -1 when the file cannot be written or the token is wrong. */
ARB_PROBE_API int arbiter_probe_write(uint64_t token, const char* path);

/* Called by the CUDA driver when it loads the library (CUDA_INJECTION64_PATH): subscribes CUPTI.
 * Returns 1 (the driver ignores the value). */
ARB_PROBE_API int InitializeInjection(void);

#ifdef __cplusplus
}
#endif

#endif /* ARBITER_PROBE_H */
