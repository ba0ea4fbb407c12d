#pragma once
/// The timing record: what one arb_time call measured, as the runtime writes it (the reference's
/// timing/<shape>.json, the record a candidate's runner hands over on the event channel) and as the
/// judge reads it back. Writer and reader sit side by side (src/runtime/timing_record.cpp) over one
/// list of fields, `timing_record_fields`; the Python runner's TIMING_RECORD_FIELDS
/// (python/arbiter_runner/runtime.py) is checked against it by a unit test. docs/protocol.md
/// describes each field.
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arbiter::runtime {

/// The sampling loop's span on its own clock and on the kernel's (docs/measurement.md, "Clock check").
struct clock_check_record {
  std::optional<double> sample_clock_s;
  std::optional<double> kernel_clock_s;
  std::string kernel_read; ///< how the kernel clock was read ("" where it was not)
  bool operator==(const clock_check_record&) const = default;
};

struct timing_record {
  std::string device;       ///< "cpu" or "cuda"
  std::string clock;        ///< the sample clock's name
  std::int64_t samples = 0; ///< kept samples (times_ms)
  std::int64_t warmup = 0;  ///< warm-up calls made
  double median_ms = 0;     ///< over the kept samples
  double p10_ms = 0, p90_ms = 0, mean_ms = 0, min_ms = 0, max_ms = 0;
  std::optional<double> rel_noise;       ///< none with fewer than two samples
  std::string stop;                      ///< stop_reason_name
  std::string method;                    ///< "held_events", "events", "steady_clock", …
  std::string fallback;                  ///< why the stream hold was given up ("" when it was not)
  std::int64_t held_samples = 0;         ///< samples queued behind the stream hold
  std::optional<double> floor_ms;        ///< held events with nothing between them
  std::optional<double> empty_kernel_ms; ///< held events around one empty kernel
  std::optional<double> host_median_ms;  ///< median host latency of a lone call (cuda)
  std::int64_t host_samples = 0;
  std::int64_t throttled_samples = 0;
  bool all_throttled = false;
  std::int64_t power_capped_samples = 0;
  double rest_ratio = 0;              ///< the stop rule's rest_ratio
  double rest_s = 0;                  ///< seconds rested after paced calls
  std::string clock_monitor;          ///< "nvml", or why the SM clock is not read
  std::optional<double> sm_clock_mhz; ///< median of the known readings
  std::optional<std::int64_t> max_sm_clock_mhz;
  clock_check_record clock_check;
  std::vector<double> times_ms;                           ///< every kept sample, in order
  std::vector<double> host_ms;                            ///< host latency samples
  std::vector<double> throttled_ms;                       ///< samples left out because the device throttled
  std::vector<std::optional<std::int64_t>> sample_sm_mhz; ///< MHz after each sample, kept or dropped
  std::vector<std::int64_t> power_capped_idx;             ///< sample indices taken under the power cap
  std::vector<std::int64_t> dropped_idx;                  ///< sample indices the stats leave out, ascending
  bool operator==(const timing_record&) const = default;
};

/// Every top-level member of a record, in the order the writer writes them (`fallback` only where
/// the hold was given up).
inline constexpr std::array<std::string_view, 34> timing_record_fields{"device",           "clock",
                                                                       "samples",          "warmup",
                                                                       "median_ms",        "p10_ms",
                                                                       "p90_ms",           "mean_ms",
                                                                       "min_ms",           "max_ms",
                                                                       "rel_noise",        "stop",
                                                                       "method",           "fallback",
                                                                       "held_samples",     "floor_ms",
                                                                       "empty_kernel_ms",  "host_median_ms",
                                                                       "host_samples",     "throttled_samples",
                                                                       "all_throttled",    "power_capped_samples",
                                                                       "rest_ratio",       "rest_s",
                                                                       "clock_monitor",    "sm_clock_mhz",
                                                                       "max_sm_clock_mhz", "clock_check",
                                                                       "times_ms",         "host_ms",
                                                                       "throttled_ms",     "sample_sm_mhz",
                                                                       "power_capped_idx", "dropped_idx"};

/// The record as JSON: none as null, members in timing_record_fields' order.
nlohmann::ordered_json to_json(const timing_record& record);

/// A record as another process wrote it, read without trusting it: a member of the wrong type, a
/// count past what an int64 holds reads as missing (zero, none, empty); list
/// entries of the wrong type are skipped, except in sample_sm_mhz, where each reads as none so the
/// list keeps one entry per sample. None when the document is no object or has no numeric median_ms.
std::optional<timing_record> parse_timing_record(const nlohmann::json& doc);

} // namespace arbiter::runtime
