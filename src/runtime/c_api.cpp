// The C ABI of arbiter_runtime.h. Every entry point runs its body inside guarded(), so no C++
// exception ever crosses into the caller (ctypes would abort the process).
#include "arbiter/runtime/arbiter_runtime.h"
#include "arbiter/runtime/timing.hpp"
#include "arbiter/runtime/timing_options.hpp"
#include "bundle_reader.hpp"
#include "bundle_writer.hpp"
#include "cuda_driver.hpp"
#include "failure.hpp"
#include "probe_link.hpp"

#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#include <string>

using namespace arbiter::runtime;

struct arb_writer {
  bundle_writer impl;
};

struct arb_reader {
  bundle_reader impl;
};

namespace {

std::mutex g_last_timing_mutex;
std::string g_last_timing; // arb_last_timing: the last record arb_time made

template <typename body_fn>
int guarded(body_fn&& body) noexcept {
  try {
    body();
    return ARB_OK;
  } catch (const runtime_failure& failure) {
    set_last_error(failure.what());
    return failure.code();
  } catch (const std::bad_alloc&) {
    set_last_error("out of memory");
    return ARB_E_INTERNAL;
  } catch (const std::exception& error) {
    set_last_error(std::string("internal error: ") + error.what());
    return ARB_E_INTERNAL;
  } catch (...) {
    set_last_error("internal error: unknown exception");
    return ARB_E_INTERNAL;
  }
}

void require(bool condition, const char* what) {
  if (!condition) fail(ARB_E_ARG, what);
}

std::unique_ptr<sample_clock> make_clock(const arb_timing_config& config) {
  if (config.device == ARB_DEVICE_CPU) return make_cpu_clock(config.l2_flush_bytes);
  if (config.device == ARB_DEVICE_CUDA) return make_cuda_clock(config.stream, config.l2_flush_bytes);
  fail(ARB_E_ARG, "timing config: unknown device " + std::to_string(config.device));
}

void fill_result(const timing_run& run, arb_timing_result& out) {
  out.samples = run.stats.samples;
  out.median_ms = run.stats.median_ms;
  out.p10_ms = run.stats.p10_ms;
  out.p90_ms = run.stats.p90_ms;
  out.mean_ms = run.stats.mean_ms;
  out.min_ms = run.stats.min_ms;
  out.max_ms = run.stats.max_ms;
  out.rel_noise = run.stats.rel_noise;
  out.stop = static_cast<int32_t>(run.stop);
}

} // namespace

extern "C" {

const char* arb_last_error(void) { return last_error(); }

int arb_writer_open(const char* path, arb_writer** out) {
  return guarded([&] {
    require(path && out, "arb_writer_open: null argument");
    *out = nullptr;
    *out = new arb_writer{bundle_writer(path)};
  });
}

int arb_writer_add(arb_writer* w, int32_t kind, int32_t dtype, int32_t ndim, const int64_t* shape, const void* data,
                   uint64_t nbytes) {
  return guarded([&] {
    require(w, "arb_writer_add: null writer");
    require(ndim >= 0 && ndim <= ARB_MAX_NDIM, "arb_writer_add: ndim outside [0, 8]");
    require(ndim == 0 || shape, "arb_writer_add: null shape");
    value_info info;
    info.kind = kind;
    info.dtype = dtype;
    info.ndim = ndim;
    std::copy(shape, shape + ndim, info.shape);
    info.nbytes = nbytes;
    w->impl.add(info, data);
  });
}

int arb_writer_close(arb_writer* w) {
  return guarded([&] {
    require(w, "arb_writer_close: null writer");
    std::unique_ptr<arb_writer> owned(w); // freed in every case, as the header promises
    owned->impl.close();
  });
}

int arb_reader_open(const char* path, arb_reader** out) {
  return guarded([&] {
    require(path && out, "arb_reader_open: null argument");
    *out = nullptr;
    *out = new arb_reader{bundle_reader(path)};
  });
}

int64_t arb_reader_count(const arb_reader* r) {
  if (!r) {
    set_last_error("arb_reader_count: null reader");
    return ARB_E_ARG;
  }
  return r->impl.count();
}

int arb_reader_info(const arb_reader* r, int64_t idx, int32_t* kind, int32_t* dtype, int32_t* ndim, int64_t* shape,
                    uint64_t* nbytes) {
  return guarded([&] {
    require(r && kind && dtype && ndim && shape && nbytes, "arb_reader_info: null argument");
    const value_info& info = r->impl.info(idx);
    *kind = info.kind;
    *dtype = info.dtype;
    *ndim = info.ndim;
    std::copy(info.shape, info.shape + ARB_MAX_NDIM, shape);
    *nbytes = info.nbytes;
  });
}

int arb_reader_copy(arb_reader* r, int64_t idx, void* dst, uint64_t dst_bytes) {
  return guarded([&] {
    require(r, "arb_reader_copy: null reader");
    r->impl.copy(idx, dst, dst_bytes);
  });
}

int arb_reader_offset(const arb_reader* r, int64_t idx, uint64_t* offset) {
  return guarded([&] {
    require(r && offset, "arb_reader_offset: null argument");
    *offset = r->impl.data_offset(idx);
  });
}

void arb_reader_close(arb_reader* r) { delete r; }

uint64_t arb_hash_bytes(const void* data, uint64_t nbytes, uint64_t seed) {
  if (!data) nbytes = 0; // XXH3 accepts (NULL, 0); never read through a null pointer
  return XXH3_64bits_withSeed(data, static_cast<size_t>(nbytes), seed);
}

int arb_timing_defaults(int32_t device, arb_timing_config* out) {
  return guarded([&] {
    require(out, "arb_timing_defaults: null config");
    require(device == ARB_DEVICE_CPU || device == ARB_DEVICE_CUDA, "arb_timing_defaults: unknown device");
    const device_timing t = for_device(timing_options{}, device == ARB_DEVICE_CUDA);
    *out = arb_timing_config{};
    out->device = device;
    out->warmup_calls = t.warmup_calls;
    out->min_samples = t.rule.min_samples;
    out->max_samples = t.rule.max_samples;
    out->min_time_s = t.rule.min_time_s;
    out->max_time_s = t.rule.max_time_s;
    out->target_rel_noise = t.rule.target_rel_noise;
    out->probe_group = -1;
    out->warmup_time_s = t.rule.warmup_time_s;
    out->rest_ratio = t.rule.rest_ratio;
  });
}

int arb_time(const arb_timing_config* config, arb_call_fn fn, void* user, const char* json_path, arb_timing_result* out) {
  return guarded([&] {
    require(config && fn, "arb_time: null config or callback");
    const stop_rule rule{config->min_samples,      config->max_samples,   config->min_time_s, config->max_time_s,
                         config->target_rel_noise, config->warmup_time_s, config->rest_ratio};
    const std::unique_ptr<sample_clock> clock = make_clock(*config);
    probe_marks marks(config->probe_group, config->stream);
    timing_hooks hooks{&marks, {}};
    if (config->after_call) hooks.after_call = [&](int64_t call_idx) { return config->after_call(user, call_idx); };
    const timing_run run = run_timing(
        rule, config->warmup_calls, *clock, [&](int64_t call_idx) { return fn(user, call_idx); }, steady_seconds, hooks);
    std::string text = timing_json(run);
    if (json_path) write_timing_json(json_path, text);
    if (out) fill_result(run, *out);
    const std::lock_guard lock(g_last_timing_mutex);
    g_last_timing = std::move(text);
  });
}

int64_t arb_last_timing(char* buf, int64_t cap) {
  const std::lock_guard lock(g_last_timing_mutex);
  if (buf && cap > 0)
    std::memcpy(buf, g_last_timing.data(), std::min<std::size_t>(g_last_timing.size(), static_cast<std::size_t>(cap)));
  return static_cast<int64_t>(g_last_timing.size());
}

int arb_probe_begin(const char* label, int64_t group, int64_t index, uint64_t stream) {
  const probe_link& link = probe_link::get();
  if (!link.present()) return 0;
  link.begin(link.token, label ? label : "", group, index, stream);
  return 1;
}

int arb_probe_end(void) {
  const probe_link& link = probe_link::get();
  if (!link.present()) return 0;
  link.end(link.token);
  return 1;
}

int arb_device_synchronize(int32_t device) {
  return guarded([&] {
    if (device == ARB_DEVICE_CPU) return;
    require(device == ARB_DEVICE_CUDA, "arb_device_synchronize: unknown device");
    const cuda_driver& driver = cuda_driver::get();
    driver.current_device(); // fails clearly when this thread has no context
    driver.check(driver.ctx_synchronize(), "cuCtxSynchronize");
  });
}

} // extern "C"
