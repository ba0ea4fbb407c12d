#include "arbiter/doctor/doctor.hpp"

#include <dlfcn.h>

#include <array>
#include <stdexcept>
#include <string>

namespace arbiter::doctor {
namespace {

// The few driver API entry points the doctor needs, declared here so that arbiter builds without
// the CUDA headers and runs without libcuda. Values from cuda.h.
using cu_result = int;
using cu_device = int;
constexpr cu_result cu_success = 0;
constexpr int attr_multiprocessor_count = 16;
constexpr int attr_l2_cache_size = 38;
constexpr int attr_cc_major = 75;
constexpr int attr_cc_minor = 76;

struct driver_api {
  cu_result (*init)(unsigned int) = nullptr;
  cu_result (*device_get_count)(int*) = nullptr;
  cu_result (*device_get)(cu_device*, int) = nullptr;
  cu_result (*device_get_name)(char*, int, cu_device) = nullptr;
  cu_result (*device_get_attribute)(int*, int, cu_device) = nullptr;
  cu_result (*device_total_mem)(std::size_t*, cu_device) = nullptr;
  cu_result (*driver_get_version)(int*) = nullptr;
  cu_result (*get_error_string)(cu_result, const char**) = nullptr; ///< optional
};

/// Thrown inside this file only; probe_gpu turns it into gpu_info::error.
struct probe_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <typename function>
void bind(void* library, function& slot, const char* symbol) {
  slot = reinterpret_cast<function>(::dlsym(library, symbol));
  if (slot == nullptr) throw probe_failure(std::string("libcuda.so.1 lacks ") + symbol);
}

/// The driver stays loaded: unloading libcuda while anything may still use it is not safe.
driver_api load_driver() {
  void* library = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = ::dlerror();
    throw probe_failure(std::string("no CUDA driver: ") + (why != nullptr ? why : "dlopen(libcuda.so.1) failed"));
  }
  driver_api api;
  bind(library, api.init, "cuInit");
  bind(library, api.device_get_count, "cuDeviceGetCount");
  bind(library, api.device_get, "cuDeviceGet");
  bind(library, api.device_get_name, "cuDeviceGetName");
  bind(library, api.device_get_attribute, "cuDeviceGetAttribute");
  bind(library, api.device_total_mem, "cuDeviceTotalMem_v2");
  bind(library, api.driver_get_version, "cuDriverGetVersion");
  api.get_error_string = reinterpret_cast<decltype(api.get_error_string)>(::dlsym(library, "cuGetErrorString"));
  return api;
}

void check(const driver_api& api, cu_result result, const char* call) {
  if (result == cu_success) return;
  const char* text = nullptr;
  if (api.get_error_string != nullptr) api.get_error_string(result, &text);
  throw probe_failure(std::string(call) + " failed: " + (text != nullptr ? text : "CUDA error") + " (" + std::to_string(result) +
                      ")");
}

std::string version_text(int version) { return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10); }

void describe_device(const driver_api& api, gpu_info& info) {
  cu_device device = 0;
  check(api, api.device_get(&device, 0), "cuDeviceGet");
  std::array<char, 256> name{};
  check(api, api.device_get_name(name.data(), static_cast<int>(name.size()), device), "cuDeviceGetName");
  info.name = name.data();
  int l2 = 0;
  check(api, api.device_get_attribute(&info.sm_count, attr_multiprocessor_count, device), "cuDeviceGetAttribute(SM count)");
  check(api, api.device_get_attribute(&l2, attr_l2_cache_size, device), "cuDeviceGetAttribute(L2 size)");
  check(api, api.device_get_attribute(&info.cc_major, attr_cc_major, device), "cuDeviceGetAttribute(CC major)");
  check(api, api.device_get_attribute(&info.cc_minor, attr_cc_minor, device), "cuDeviceGetAttribute(CC minor)");
  std::size_t memory = 0;
  check(api, api.device_total_mem(&memory, device), "cuDeviceTotalMem_v2");
  info.l2_bytes = l2;
  info.memory_bytes = static_cast<std::int64_t>(memory);
}

} // namespace

gpu_info probe_gpu() {
  gpu_info info;
  try {
    auto const api = load_driver();
    int version = 0;
    check(api, api.driver_get_version(&version), "cuDriverGetVersion");
    info.driver_version = version_text(version);
    check(api, api.init(0), "cuInit");
    check(api, api.device_get_count(&info.device_count), "cuDeviceGetCount");
    if (info.device_count == 0) throw probe_failure("the CUDA driver sees no device");
    describe_device(api, info);
    info.present = true;
  } catch (const probe_failure& failure) {
    gpu_info absent;
    absent.driver_version = info.driver_version;
    absent.device_count = info.device_count;
    absent.error = failure.what();
    info = absent;
  }
  return info;
}

} // namespace arbiter::doctor
