#pragma once
/// The few CUDA driver entry points the timing loop needs, reached through dlopen("libcuda.so.1")
/// so that the runtime library links no CUDA library and loads on machines without a GPU. The
/// types are declared here with the driver's ABI (cuda.h is not needed to build).
#include <cstddef>
#include <string>

namespace arbiter::runtime {

using cu_result = int;
using cu_device = int;
using cu_deviceptr = unsigned long long;
using cu_context = struct cu_context_opaque*;
using cu_stream = struct cu_stream_opaque*;
using cu_event = struct cu_event_opaque*;
using cu_module = struct cu_module_opaque*;
using cu_function = struct cu_function_opaque*;

inline constexpr int k_cu_attr_l2_cache_size = 38;                       // CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE
inline constexpr unsigned k_cu_event_default = 0;                        // CU_EVENT_DEFAULT
inline constexpr unsigned k_cu_host_alloc_portable_mapped = 0x01 | 0x02; // CU_MEMHOSTALLOC_PORTABLE | _DEVICEMAP

struct cuda_driver {
  cu_result (*ctx_get_current)(cu_context*) = nullptr;
  cu_result (*ctx_get_device)(cu_device*) = nullptr;
  cu_result (*ctx_synchronize)() = nullptr;
  cu_result (*ctx_reset_persisting_l2)() = nullptr; // optional: absent before CUDA 11
  cu_result (*device_get_attribute)(int*, int, cu_device) = nullptr;
  cu_result (*mem_alloc)(cu_deviceptr*, size_t) = nullptr;
  cu_result (*mem_free)(cu_deviceptr) = nullptr;
  cu_result (*memset_d32_async)(cu_deviceptr, unsigned, size_t, cu_stream) = nullptr;
  cu_result (*event_create)(cu_event*, unsigned) = nullptr;
  cu_result (*event_destroy)(cu_event) = nullptr;
  cu_result (*event_record)(cu_event, cu_stream) = nullptr;
  cu_result (*event_elapsed_time)(float*, cu_event, cu_event) = nullptr;
  cu_result (*module_load_data)(cu_module*, const void*) = nullptr;
  cu_result (*module_unload)(cu_module) = nullptr;
  cu_result (*module_get_function)(cu_function*, cu_module, const char*) = nullptr;
  cu_result (*launch_kernel)(cu_function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, cu_stream, void**,
                             void**) = nullptr;
  cu_result (*mem_host_alloc)(void**, size_t, unsigned) = nullptr;
  cu_result (*mem_free_host)(void*) = nullptr;
  cu_result (*mem_host_get_device_pointer)(cu_deviceptr*, void*, unsigned) = nullptr;
  cu_result (*device_get_pci_bus_id)(char*, int, cu_device) = nullptr;
  cu_result (*get_error_name)(cu_result, const char**) = nullptr; // optional: nicer messages

  /// The process-wide driver, loaded on first use. Throws runtime_failure(ARB_E_CUDA) with
  /// dlerror's text when libcuda.so.1 or a required symbol is missing.
  static const cuda_driver& get();

  /// "CUDA error <code> (<name>)".
  std::string describe(cu_result rc) const;

  /// Throws runtime_failure(ARB_E_CUDA) "<what>: CUDA error <code> (<name>)" unless rc is 0.
  void check(cu_result rc, const char* what) const;

  /// The device of the calling thread's current context. Throws runtime_failure(ARB_E_CUDA)
  /// when no context is current (CUDA not initialised on this thread).
  cu_device current_device() const;
};

} // namespace arbiter::runtime
