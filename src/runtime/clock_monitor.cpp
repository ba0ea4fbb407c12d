#include "clock_monitor.hpp"

#include <dlfcn.h>

namespace arbiter::runtime {

namespace {

using nvml_device = struct nvml_device_opaque*;
using nvml_return = int;

constexpr int k_nvml_clock_sm = 1;                        // NVML_CLOCK_SM
constexpr unsigned long long k_reason_sw_power_cap = 0x4; // nvmlClocksEventReasonSwPowerCap
constexpr unsigned long long k_reason_hw_slowdown = 0x8;  // nvmlClocksThrottleReasonHwSlowdown
constexpr unsigned long long k_reason_sw_thermal = 0x20;  // nvmlClocksEventReasonSwThermalSlowdown
constexpr unsigned long long k_reason_hw_thermal = 0x40;  // nvmlClocksThrottleReasonHwThermalSlowdown
constexpr unsigned long long k_reason_power_brake = 0x80; // nvmlClocksThrottleReasonHwPowerBrakeSlowdown

struct nvml_api {
  nvml_return (*init)() = nullptr;
  nvml_return (*by_pci)(const char*, nvml_device*) = nullptr;
  nvml_return (*clock_info)(nvml_device, int, unsigned*) = nullptr;
  nvml_return (*max_clock_info)(nvml_device, int, unsigned*) = nullptr;
  nvml_return (*reasons)(nvml_device, unsigned long long*) = nullptr;
};

template <typename fn_ptr>
bool bind(void* library, fn_ptr& slot, const char* name) {
  slot = reinterpret_cast<fn_ptr>(dlsym(library, name));
  return slot != nullptr;
}

class nvml_monitor final : public clock_monitor {
 public:
  nvml_monitor(nvml_api api, nvml_device device) : m_api(api), m_device(device) {
    if (m_api.max_clock_info(m_device, k_nvml_clock_sm, &m_max_mhz) != 0) m_max_mhz = 0;
  }

  clock_reading read() override {
    unsigned mhz = 0;
    unsigned long long reasons = 0;
    if (m_api.clock_info(m_device, k_nvml_clock_sm, &mhz) != 0) mhz = 0;
    if (m_api.reasons(m_device, &reasons) != 0) reasons = 0;
    return classify_reasons(mhz, reasons);
  }

  unsigned max_sm_mhz() const override { return m_max_mhz; }

 private:
  nvml_api m_api;
  nvml_device m_device;
  unsigned m_max_mhz = 0;
};

} // namespace

clock_reading classify_reasons(unsigned sm_mhz, unsigned long long reasons) {
  clock_reading r;
  r.sm_mhz = sm_mhz;
  r.throttled = (reasons & (k_reason_hw_slowdown | k_reason_sw_thermal | k_reason_hw_thermal | k_reason_power_brake)) != 0;
  r.power_capped = (reasons & k_reason_sw_power_cap) != 0;
  return r;
}

std::unique_ptr<clock_monitor> make_clock_monitor(const std::string& pci_bus_id, std::string* why) {
  void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (!library) {
    if (why) *why = "libnvidia-ml.so.1 not loadable";
    return nullptr;
  }
  nvml_api api;
  const bool bound = bind(library, api.init, "nvmlInit_v2") && bind(library, api.by_pci, "nvmlDeviceGetHandleByPciBusId_v2") &&
      bind(library, api.clock_info, "nvmlDeviceGetClockInfo") && bind(library, api.max_clock_info, "nvmlDeviceGetMaxClockInfo") &&
      (bind(library, api.reasons, "nvmlDeviceGetCurrentClocksEventReasons") ||
       bind(library, api.reasons, "nvmlDeviceGetCurrentClocksThrottleReasons"));
  if (!bound) {
    if (why) *why = "libnvidia-ml.so.1 lacks a clock entry point";
    return nullptr;
  }
  nvml_device device = nullptr;
  if (const nvml_return rc = api.init(); rc != 0) {
    if (why) *why = "nvmlInit failed (NVML error " + std::to_string(rc) + ")";
    return nullptr;
  }
  if (const nvml_return rc = api.by_pci(pci_bus_id.c_str(), &device); rc != 0) {
    if (why) *why = "NVML has no device at PCI " + pci_bus_id + " (NVML error " + std::to_string(rc) + ")";
    return nullptr;
  }
  return std::make_unique<nvml_monitor>(api, device);
}

} // namespace arbiter::runtime
