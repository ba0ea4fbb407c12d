#include "cuda_driver.hpp"

#include "arbiter/runtime/arbiter_runtime.h"
#include "failure.hpp"

#include <dlfcn.h>

namespace arbiter::runtime {

namespace {

template <typename fn_ptr>
void bind(void* library, fn_ptr& slot, const char* name, bool required) {
  slot = reinterpret_cast<fn_ptr>(dlsym(library, name));
  if (!slot && required) fail(ARB_E_CUDA, std::string("libcuda.so.1 lacks ") + name);
}

// Prefer the versioned symbol where the driver has it; the unversioned one keeps the old ABI.
template <typename fn_ptr>
void bind_either(void* library, fn_ptr& slot, const char* newer, const char* older) {
  bind(library, slot, newer, false);
  if (!slot) bind(library, slot, older, true);
}

cuda_driver load_driver() {
  // RTLD_NOLOAD first: inside PyTorch the driver is already mapped and that handle is the one
  // whose context we must use; a plain dlopen returns the same handle anyway.
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!library) library = dlopen("libcuda.so.1", RTLD_NOW);
  if (!library) {
    const char* reason = dlerror();
    fail(ARB_E_CUDA, std::string("CUDA driver unavailable: cannot load libcuda.so.1: ") + (reason ? reason : "?"));
  }
  cuda_driver driver;
  bind(library, driver.ctx_get_current, "cuCtxGetCurrent", true);
  bind(library, driver.ctx_get_device, "cuCtxGetDevice", true);
  bind(library, driver.ctx_synchronize, "cuCtxSynchronize", true);
  bind(library, driver.ctx_reset_persisting_l2, "cuCtxResetPersistingL2Cache", false);
  bind(library, driver.device_get_attribute, "cuDeviceGetAttribute", true);
  bind(library, driver.mem_alloc, "cuMemAlloc_v2", true);
  bind(library, driver.mem_free, "cuMemFree_v2", true);
  bind(library, driver.memset_d32_async, "cuMemsetD32Async", true);
  bind(library, driver.event_create, "cuEventCreate", true);
  bind_either(library, driver.event_destroy, "cuEventDestroy_v2", "cuEventDestroy");
  bind(library, driver.event_record, "cuEventRecord", true);
  bind_either(library, driver.event_elapsed_time, "cuEventElapsedTime_v2", "cuEventElapsedTime");
  bind(library, driver.module_load_data, "cuModuleLoadData", true);
  bind(library, driver.module_unload, "cuModuleUnload", true);
  bind(library, driver.module_get_function, "cuModuleGetFunction", true);
  bind(library, driver.launch_kernel, "cuLaunchKernel", true);
  bind(library, driver.mem_host_alloc, "cuMemHostAlloc", true);
  bind(library, driver.mem_free_host, "cuMemFreeHost", true);
  bind_either(library, driver.mem_host_get_device_pointer, "cuMemHostGetDevicePointer_v2", "cuMemHostGetDevicePointer");
  bind(library, driver.device_get_pci_bus_id, "cuDeviceGetPCIBusId", true);
  bind(library, driver.get_error_name, "cuGetErrorName", false);
  return driver;
}

} // namespace

const cuda_driver& cuda_driver::get() {
  // A static initialiser that throws is retried on the next call, so a failed load is not sticky.
  static const cuda_driver driver = load_driver();
  return driver;
}

std::string cuda_driver::describe(cu_result rc) const {
  const char* name = nullptr;
  if (get_error_name) get_error_name(rc, &name);
  return "CUDA error " + std::to_string(rc) + " (" + (name ? name : "unknown") + ")";
}

void cuda_driver::check(cu_result rc, const char* what) const {
  if (rc != 0) fail(ARB_E_CUDA, std::string(what) + ": " + describe(rc));
}

cu_device cuda_driver::current_device() const {
  cu_context context = nullptr;
  // Without cuInit the driver answers NOT_INITIALIZED rather than a null context: same cause.
  const cu_result rc = ctx_get_current(&context);
  if (rc != 0 || !context)
    fail(ARB_E_CUDA,
         "no CUDA context is current on the calling thread (initialise CUDA on this thread, e.g. "
         "through PyTorch, before timing)" +
             (rc != 0 ? ": cuCtxGetCurrent: " + describe(rc) : std::string()));
  cu_device device = 0;
  check(ctx_get_device(&device), "cuCtxGetDevice");
  return device;
}

} // namespace arbiter::runtime
