#pragma once
/// The SM clock and the reasons it is held down, read through NVML (dlopen'ed libnvidia-ml.so.1,
/// like the driver) after each sample, so that samples taken while the device slowed itself for
/// heat or power are discarded and counted (docs/measurement.md).
#include <cstdint>
#include <memory>
#include <string>

namespace arbiter::runtime {

struct clock_reading {
  unsigned sm_mhz = 0;       ///< 0 when unknown
  bool throttled = false;    ///< thermal slowdown (hardware or software) or a power brake
  bool power_capped = false; ///< the software power cap lowered the clock (normal under full load)
};

class clock_monitor {
 public:
  virtual ~clock_monitor() = default;
  virtual clock_reading read() = 0;
  /// The device's maximum SM clock in MHz (0 when unknown).
  virtual unsigned max_sm_mhz() const = 0;
};

/// A monitor for the device with this PCI bus id ("0000:65:00.0"), or nullptr with *why set when
/// NVML or the device is unavailable.
std::unique_ptr<clock_monitor> make_clock_monitor(const std::string& pci_bus_id, std::string* why);

/// Which clock-event reason bits (NVML's nvmlClocksEventReason*) count as throttling and which
/// as the power cap; kept apart from NVML so that the classification is tested.
clock_reading classify_reasons(unsigned sm_mhz, unsigned long long reasons);

} // namespace arbiter::runtime
