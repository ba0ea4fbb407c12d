// The timing record's writer and reader, side by side over include/arbiter/runtime/timing_record.hpp.
// The reader takes bytes a runner process wrote (a candidate's under its own control) and trusts
// none of their types.
#include "arbiter/runtime/timing_record.hpp"

#include "arbiter/common/json_field.hpp"
#include "arbiter/common/json_number.hpp"

#include <utility>

namespace arbiter::runtime {

namespace {

template <class T>
nlohmann::ordered_json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json();
}

nlohmann::ordered_json clock_check_json(const clock_check_record& check) {
  nlohmann::ordered_json doc;
  doc["sample_clock_s"] = optional_json(check.sample_clock_s);
  doc["kernel_clock_s"] = optional_json(check.kernel_clock_s);
  doc["kernel_read"] = check.kernel_read;
  return doc;
}

void add_method(nlohmann::ordered_json& doc, const timing_record& r) {
  doc["method"] = r.method;
  if (!r.fallback.empty()) doc["fallback"] = r.fallback;
  doc["held_samples"] = r.held_samples;
  doc["floor_ms"] = optional_json(r.floor_ms);
  doc["empty_kernel_ms"] = optional_json(r.empty_kernel_ms);
  doc["host_median_ms"] = optional_json(r.host_median_ms);
  doc["host_samples"] = r.host_samples;
  doc["throttled_samples"] = r.throttled_samples;
  doc["all_throttled"] = r.all_throttled;
  doc["power_capped_samples"] = r.power_capped_samples;
  doc["rest_ratio"] = r.rest_ratio;
  doc["rest_s"] = r.rest_s;
  doc["clock_monitor"] = r.clock_monitor;
  doc["sm_clock_mhz"] = optional_json(r.sm_clock_mhz);
  doc["max_sm_clock_mhz"] = optional_json(r.max_sm_clock_mhz);
}

void add_samples(nlohmann::ordered_json& doc, const timing_record& r) {
  doc["times_ms"] = r.times_ms;
  doc["host_ms"] = r.host_ms;
  doc["throttled_ms"] = r.throttled_ms;
  nlohmann::ordered_json mhz = nlohmann::ordered_json::array();
  for (const auto& reading : r.sample_sm_mhz) mhz.push_back(optional_json(reading));
  doc["sample_sm_mhz"] = std::move(mhz);
  doc["power_capped_idx"] = r.power_capped_idx;
  doc["dropped_idx"] = r.dropped_idx;
}

bool bool_or_false(const nlohmann::json& doc, const char* key) {
  const auto it = doc.find(key);
  return it != doc.end() && it->is_boolean() && it->get<bool>();
}

std::int64_t count_or_zero(const nlohmann::json& doc, const char* key) { return integer_or<std::int64_t>(doc, key, 0); }

const nlohmann::json* array_at(const nlohmann::json& doc, const char* key) {
  const auto it = doc.find(key);
  return it != doc.end() && it->is_array() ? &*it : nullptr;
}

std::vector<double> numbers_at(const nlohmann::json& doc, const char* key) {
  std::vector<double> values;
  if (const auto* list = array_at(doc, key))
    for (const auto& v : *list)
      if (v.is_number()) values.push_back(v.get<double>());
  return values;
}

// An integer as written (a fraction or a number past an int64 is none).
std::optional<std::int64_t> index_of(const nlohmann::json& v) {
  if (!v.is_number_integer() || (v.is_number_unsigned() && !std::in_range<std::int64_t>(v.get<std::uint64_t>())))
    return std::nullopt;
  return v.get<std::int64_t>();
}

std::vector<std::int64_t> indices_at(const nlohmann::json& doc, const char* key) {
  std::vector<std::int64_t> values;
  if (const auto* list = array_at(doc, key))
    for (const auto& v : *list)
      if (const auto index = index_of(v)) values.push_back(*index);
  return values;
}

clock_check_record clock_check_of(const nlohmann::json& doc) {
  const auto it = doc.find("clock_check");
  if (it == doc.end() || !it->is_object()) return {};
  return {number_at(*it, "sample_clock_s"), number_at(*it, "kernel_clock_s"), string_or(*it, "kernel_read")};
}

void read_method(const nlohmann::json& doc, timing_record& r) {
  r.method = string_or(doc, "method");
  r.fallback = string_or(doc, "fallback");
  r.held_samples = count_or_zero(doc, "held_samples");
  r.floor_ms = number_at(doc, "floor_ms");
  r.empty_kernel_ms = number_at(doc, "empty_kernel_ms");
  r.host_median_ms = number_at(doc, "host_median_ms");
  r.host_samples = count_or_zero(doc, "host_samples");
  r.throttled_samples = count_or_zero(doc, "throttled_samples");
  r.all_throttled = bool_or_false(doc, "all_throttled");
  r.power_capped_samples = count_or_zero(doc, "power_capped_samples");
  r.rest_ratio = number_at(doc, "rest_ratio").value_or(0.0);
  r.rest_s = number_at(doc, "rest_s").value_or(0.0);
  r.clock_monitor = string_or(doc, "clock_monitor");
  r.sm_clock_mhz = number_at(doc, "sm_clock_mhz");
  r.max_sm_clock_mhz = integer_at<std::int64_t>(doc, "max_sm_clock_mhz");
}

void read_samples(const nlohmann::json& doc, timing_record& r) {
  r.times_ms = numbers_at(doc, "times_ms");
  r.host_ms = numbers_at(doc, "host_ms");
  r.throttled_ms = numbers_at(doc, "throttled_ms");
  if (const auto* list = array_at(doc, "sample_sm_mhz"))
    for (const auto& v : *list) r.sample_sm_mhz.push_back(index_of(v));
  r.power_capped_idx = indices_at(doc, "power_capped_idx");
  r.dropped_idx = indices_at(doc, "dropped_idx");
}

} // namespace

nlohmann::ordered_json to_json(const timing_record& r) {
  nlohmann::ordered_json doc;
  doc["device"] = r.device;
  doc["clock"] = r.clock;
  doc["samples"] = r.samples;
  doc["warmup"] = r.warmup;
  doc["median_ms"] = r.median_ms;
  doc["p10_ms"] = r.p10_ms;
  doc["p90_ms"] = r.p90_ms;
  doc["mean_ms"] = r.mean_ms;
  doc["min_ms"] = r.min_ms;
  doc["max_ms"] = r.max_ms;
  doc["rel_noise"] = optional_json(r.rel_noise);
  doc["stop"] = r.stop;
  add_method(doc, r);
  doc["clock_check"] = clock_check_json(r.clock_check);
  add_samples(doc, r);
  return doc;
}

std::optional<timing_record> parse_timing_record(const nlohmann::json& doc) {
  if (!doc.is_object() || !number_at(doc, "median_ms")) return std::nullopt;
  timing_record r;
  r.device = string_or(doc, "device");
  r.clock = string_or(doc, "clock");
  r.samples = count_or_zero(doc, "samples");
  r.warmup = count_or_zero(doc, "warmup");
  r.median_ms = *number_at(doc, "median_ms");
  r.p10_ms = number_at(doc, "p10_ms").value_or(0.0);
  r.p90_ms = number_at(doc, "p90_ms").value_or(0.0);
  r.mean_ms = number_at(doc, "mean_ms").value_or(0.0);
  r.min_ms = number_at(doc, "min_ms").value_or(0.0);
  r.max_ms = number_at(doc, "max_ms").value_or(0.0);
  r.rel_noise = number_at(doc, "rel_noise");
  r.stop = string_or(doc, "stop");
  read_method(doc, r);
  r.clock_check = clock_check_of(doc);
  read_samples(doc, r);
  return r;
}

} // namespace arbiter::runtime
