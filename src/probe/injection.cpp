// The CUDA driver loads the probe (CUDA_INJECTION64_PATH) and calls InitializeInjection during
// cuInit, before any kernel can run. It subscribes to CUPTI's callbacks: the resource domain
// (contexts, streams, modules, graphs) and the launch, graph-launch and capture entry points of the
// runtime and the driver. A call that enters another traced call (cudaLaunchKernel → cuLaunchKernel)
// counts once: only the outermost traced call of a thread counts.
#include "arbiter/probe/arbiter_probe.h"
#include "cupti_glue.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <string>

namespace arbiter::probe {

std::atomic<std::uint32_t> g_max_correlation{0};

recorder& the_recorder() {
  static auto* instance = new recorder();
  return *instance;
}

bool cupti_ok(CUptiResult rc, const char* what) {
  if (rc == CUPTI_SUCCESS) return true;
  const char* text = nullptr;
  if (cuptiGetResultString(rc, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown";
  the_recorder().error(std::string(what) + ": CUPTI error " + std::to_string(static_cast<int>(rc)) + " (" + text + ")");
  return false;
}

const driver_entry_points& driver() {
  static const driver_entry_points entry = [] {
    driver_entry_points e;
    void* cuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (cuda == nullptr) return e;
    e.ctx_get_current = reinterpret_cast<CUresult (*)(CUcontext*)>(::dlsym(cuda, "cuCtxGetCurrent"));
    e.driver_get_version = reinterpret_cast<CUresult (*)(int*)>(::dlsym(cuda, "cuDriverGetVersion"));
    return e;
  }();
  return entry;
}

namespace {

enum class api_role : std::uint8_t { other, launch, graph_launch, capture };

thread_local int t_depth = 0; // traced API calls the thread is inside

api_role runtime_role(CUpti_CallbackId id) {
  switch (id) {
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
  case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
  case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
    return api_role::launch;
  case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
  case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000:
    return api_role::graph_launch;
  case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000:
  case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000:
  case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_v12030:
  case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_ptsz_v12030:
    return api_role::capture;
  default:
    return api_role::other;
  }
}

api_role driver_role(CUpti_CallbackId id) {
  switch (id) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
    return api_role::launch;
  case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
  case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
    return api_role::graph_launch;
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz:
    return api_role::capture;
  default:
    return api_role::other;
  }
}

constexpr CUpti_CallbackId k_runtime_ids[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000, CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_v12030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_ptsz_v12030};

constexpr CUpti_CallbackId k_driver_ids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion}; // the marker call of arbiter_probe_begin/end

void note_correlation(std::uint32_t id) {
  std::uint32_t seen = g_max_correlation.load(std::memory_order_relaxed);
  while (id > seen && !g_max_correlation.compare_exchange_weak(seen, id, std::memory_order_relaxed)) {
  }
}

void on_resource(CUpti_CallbackId id, const CUpti_ResourceData* data) {
  auto& rec = the_recorder();
  switch (id) {
  case CUPTI_CBID_RESOURCE_CONTEXT_CREATED: rec.context_created(); break;
  case CUPTI_CBID_RESOURCE_MODULE_LOADED: rec.module_loaded(); break;
  case CUPTI_CBID_RESOURCE_GRAPH_CREATED: rec.graph_created(); break;
  case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED: rec.graph_instantiated(); break;
  case CUPTI_CBID_RESOURCE_STREAM_CREATED: {
    std::uint32_t stream = 0;
    if (ARB_CUPTI_CALL(cuptiGetStreamIdEx(data->context, data->resourceHandle.stream, 0, &stream))) rec.stream_created(stream);
    break;
  }
  default: break;
  }
}

void on_api(CUpti_CallbackDomain domain, CUpti_CallbackId id, const CUpti_CallbackData* data) {
  if (data->callbackSite == CUPTI_API_EXIT) {
    if (t_depth > 0) --t_depth;
    return;
  }
  note_correlation(data->correlationId);
  if (t_depth++ > 0) return;
  switch (domain == CUPTI_CB_DOMAIN_RUNTIME_API ? runtime_role(id) : driver_role(id)) {
  case api_role::launch: the_recorder().launch(false); break;
  case api_role::graph_launch: the_recorder().launch(true); break;
  case api_role::capture: the_recorder().capture_begun(); break;
  case api_role::other: break;
  }
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) on_resource(id, static_cast<const CUpti_ResourceData*>(data));
  else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API)
    on_api(domain, id, static_cast<const CUpti_CallbackData*>(data));
}

bool subscribe() {
  CUpti_SubscriberHandle subscriber = nullptr;
  if (!ARB_CUPTI_CALL(cuptiSubscribe(&subscriber, on_callback, nullptr))) return false;
  bool ok = ARB_CUPTI_CALL(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE));
  for (const auto id : k_runtime_ids) ok = ARB_CUPTI_CALL(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id)) && ok;
  for (const auto id : k_driver_ids) ok = ARB_CUPTI_CALL(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id)) && ok;
  return ok;
}

} // namespace

} // namespace arbiter::probe

extern "C" int InitializeInjection(void) {
  using namespace arbiter::probe;
  static bool initialised = false; // the driver calls once; a second call must not subscribe twice
  if (initialised) return 1;
  initialised = true;
  install_exit_writer();
  // Activity first: CUPTI wants the buffer callbacks registered before kinds are enabled, and
  // launches must not run untraced between the two.
  if (!start_activity()) std::fprintf(stderr, "arbiter probe: kernel activity unavailable (see probe.json errors)\n");
  if (!subscribe()) std::fprintf(stderr, "arbiter probe: CUPTI callbacks incomplete (see probe.json errors)\n");
  return 1;
}
