// The CUDA driver loads the probe (CUDA_INJECTION64_PATH) and calls InitializeInjection during
// cuInit, before any kernel can run. It subscribes to CUPTI's callbacks: the resource domain
// (contexts, streams, modules, graphs) and the launch, graph-launch and capture entry points of the
// runtime and the driver. A call that enters another traced call (cudaLaunchKernel → cuLaunchKernel)
// counts once: only the outermost traced call of a thread counts. Copy and memset entry points are
// traced too, found by name: with the launches, the callback API's own count of each window's work,
// held apart from the activity records so that the two can be checked against each other.
// At every marker the probe checks that its callbacks are still enabled and enables its activity
// kinds again (reassert_witness): CUPTI is process-wide, and the candidate's code runs in the process.
#include "arbiter/probe/arbiter_probe.h"
#include "cupti_glue.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

enum class api_role : std::uint8_t { other, launch, graph_launch, capture, transfer };

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

constexpr CUpti_CallbackId k_runtime_ids[] = {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                              CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
                                              CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
                                              CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
                                              CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
                                              CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
                                              CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
                                              CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
                                              CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
                                              CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
                                              CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000,
                                              CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000,
                                              CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_v12030,
                                              CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_ptsz_v12030};

constexpr CUpti_CallbackId k_driver_ids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion}; // the marker call of arbiter_probe_begin/end

/// The subscriber and every callback it enabled: what reassert_witness checks.
struct traced_state {
  CUpti_SubscriberHandle subscriber = nullptr;
  std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>> callbacks;
  std::vector<bool> runtime_transfers, driver_transfers; ///< by callback id
};

traced_state& traced() {
  static auto* state = new traced_state();
  return *state;
}

bool is_transfer(CUpti_CallbackDomain domain, CUpti_CallbackId id) {
  const auto& known = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? traced().runtime_transfers : traced().driver_transfers;
  return id < known.size() && known[id];
}

bool transfer_name(std::string_view name) {
  for (std::string_view prefix : {"cuMemcpy", "cuMemset", "cudaMemcpy", "cudaMemset"})
    if (name.substr(0, prefix.size()) == prefix) return true;
  return false;
}

/// The copy and memset entry points of a domain, by their names (ids below `size`).
std::vector<bool> transfer_ids(CUpti_CallbackDomain domain, CUpti_CallbackId size) {
  std::vector<bool> ids(size, false);
  for (CUpti_CallbackId id = 1; id < size; ++id) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, id, &name) == CUPTI_SUCCESS && name != nullptr && transfer_name(name)) ids[id] = true;
  }
  return ids;
}

void note_correlation(std::uint32_t id) {
  std::uint32_t seen = g_max_correlation.load(std::memory_order_relaxed);
  while (id > seen && !g_max_correlation.compare_exchange_weak(seen, id, std::memory_order_relaxed)) {}
}

void on_resource(CUpti_CallbackId id, const CUpti_ResourceData* data) {
  auto& rec = the_recorder();
  switch (id) {
  case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
    rec.context_created();
    break;
  case CUPTI_CBID_RESOURCE_MODULE_LOADED:
    rec.module_loaded();
    break;
  case CUPTI_CBID_RESOURCE_GRAPH_CREATED:
    rec.graph_created();
    break;
  case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED:
    rec.graph_instantiated();
    break;
  case CUPTI_CBID_RESOURCE_STREAM_CREATED: {
    std::uint32_t stream = 0;
    if (ARB_CUPTI_CALL(cuptiGetStreamIdEx(data->context, data->resourceHandle.stream, 0, &stream))) rec.stream_created(stream);
    break;
  }
  default:
    break;
  }
}

api_role role_of(CUpti_CallbackDomain domain, CUpti_CallbackId id) {
  const api_role role = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? runtime_role(id) : driver_role(id);
  return role == api_role::other && is_transfer(domain, id) ? api_role::transfer : role;
}

/// The outermost traced call returned: a kernel launch or a copy or memset that succeeded is
/// counted in the window of its correlation id (cudaError_t and CUresult alike: 0 is success).
void on_return(CUpti_CallbackDomain domain, CUpti_CallbackId id, const CUpti_CallbackData* data) {
  const api_role role = role_of(domain, id);
  if (role != api_role::launch && role != api_role::transfer) return;
  if (data->functionReturnValue == nullptr || *static_cast<const int*>(data->functionReturnValue) != 0) return;
  the_recorder().api_returned(data->correlationId, role == api_role::launch ? api_work::kernel_launch : api_work::transfer);
}

void on_api(CUpti_CallbackDomain domain, CUpti_CallbackId id, const CUpti_CallbackData* data) {
  if (data->callbackSite == CUPTI_API_EXIT) {
    if (t_depth > 0 && --t_depth == 0) on_return(domain, id, data);
    return;
  }
  note_correlation(data->correlationId);
  if (t_depth++ > 0) return;
  switch (role_of(domain, id)) {
  case api_role::launch:
    the_recorder().launch(false);
    break;
  case api_role::graph_launch:
    the_recorder().launch(true);
    break;
  case api_role::capture:
    the_recorder().capture_begun();
    break;
  case api_role::transfer:
  case api_role::other:
    break;
  }
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) on_resource(id, static_cast<const CUpti_ResourceData*>(data));
  else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API)
    on_api(domain, id, static_cast<const CUpti_CallbackData*>(data));
}

constexpr CUpti_CallbackId k_resource_ids[] = {CUPTI_CBID_RESOURCE_CONTEXT_CREATED, CUPTI_CBID_RESOURCE_MODULE_LOADED,
                                               CUPTI_CBID_RESOURCE_GRAPH_CREATED, CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED,
                                               CUPTI_CBID_RESOURCE_STREAM_CREATED};

bool enable(CUpti_CallbackDomain domain, CUpti_CallbackId id) {
  auto& state = traced();
  state.callbacks.emplace_back(domain, id);
  return ARB_CUPTI_CALL(cuptiEnableCallback(1, state.subscriber, domain, id));
}

bool subscribe() {
  auto& state = traced();
  if (!ARB_CUPTI_CALL(cuptiSubscribe(&state.subscriber, on_callback, nullptr))) return false;
  state.runtime_transfers = transfer_ids(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE);
  state.driver_transfers = transfer_ids(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE);
  bool ok = ARB_CUPTI_CALL(cuptiEnableDomain(1, state.subscriber, CUPTI_CB_DOMAIN_RESOURCE));
  for (const auto id : k_resource_ids) state.callbacks.emplace_back(CUPTI_CB_DOMAIN_RESOURCE, id);
  for (const auto id : k_runtime_ids) ok = enable(CUPTI_CB_DOMAIN_RUNTIME_API, id) && ok;
  for (const auto id : k_driver_ids) ok = enable(CUPTI_CB_DOMAIN_DRIVER_API, id) && ok;
  for (CUpti_CallbackId id = 0; id < state.runtime_transfers.size(); ++id)
    if (state.runtime_transfers[id]) ok = enable(CUPTI_CB_DOMAIN_RUNTIME_API, id) && ok;
  for (CUpti_CallbackId id = 0; id < state.driver_transfers.size(); ++id)
    if (state.driver_transfers[id]) ok = enable(CUPTI_CB_DOMAIN_DRIVER_API, id) && ok;
  return ok;
}

std::string callback_name(CUpti_CallbackDomain domain, CUpti_CallbackId id) {
  const char* name = nullptr;
  if (domain != CUPTI_CB_DOMAIN_RESOURCE && cuptiGetCallbackName(domain, id, &name) == CUPTI_SUCCESS && name != nullptr)
    return name;
  return (domain == CUPTI_CB_DOMAIN_RESOURCE ? "resource callback " : "callback ") + std::to_string(id);
}

/// The environment variables that name the probe and its files: read once at initialisation, then
/// removed, so that the candidate's code does not find the library's path in its environment.
void forget_environment() {
  for (const char* name : {"CUDA_INJECTION64_PATH", "ARBITER_PROBE_KEY", "ARBITER_PROBE_OUT"}) ::unsetenv(name);
}

} // namespace

void reassert_witness(const char* where) {
  auto& state = traced();
  std::vector<std::string> disabled;
  if (state.subscriber != nullptr) {
    for (const auto& [domain, id] : state.callbacks) {
      std::uint32_t enabled = 0;
      if (cuptiGetCallbackState(&enabled, state.subscriber, domain, id) == CUPTI_SUCCESS && enabled != 0) continue;
      disabled.push_back(callback_name(domain, id));
      ARB_CUPTI_CALL(cuptiEnableCallback(1, state.subscriber, domain, id));
    }
  }
  reassert_activity();
  the_recorder().witness_check(disabled, where);
}

} // namespace arbiter::probe

extern "C" int InitializeInjection(void) {
  using namespace arbiter::probe;
  static bool initialised = false; // the driver calls once; a second call must not subscribe twice
  if (initialised) return 1;
  initialised = true;
  install_exit_writer();
  forget_environment();
  // Activity first: CUPTI wants the buffer callbacks registered before kinds are enabled, and
  // launches must not run untraced between the two.
  if (!start_activity()) std::fprintf(stderr, "arbiter probe: kernel activity unavailable (see probe.json errors)\n");
  if (!subscribe()) std::fprintf(stderr, "arbiter probe: CUPTI callbacks incomplete (see probe.json errors)\n");
  return 1;
}
