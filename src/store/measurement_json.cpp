#include "arbiter/store/measurement_json.hpp"

#include "arbiter/common/json_number.hpp"

namespace arbiter::store {

namespace {
using json = nlohmann::ordered_json;
} // namespace

json measurement_json(const measurement_record& m) {
  return {{"shape", m.shape},
          {"role", m.role},
          {"baseline", m.baseline},
          {"clock", m.clock},
          {"median_ms", m.median_ms},
          {"p10_ms", m.p10_ms},
          {"p90_ms", m.p90_ms},
          {"mean_ms", m.mean_ms},
          {"samples", m.samples},
          {"rel_noise", m.rel_noise},
          {"speedup", optional_number<json>(m.speedup)},
          {"method", m.method},
          {"host_median_ms", optional_number<json>(m.host_median_ms)},
          {"throttled", m.throttled},
          {"sm_clock_mhz", optional_number<json>(m.sm_clock_mhz)},
          {"power_capped", m.power_capped}};
}

measurement_record measurement_from_json(const json& m) {
  measurement_record r;
  r.shape = m.value("shape", "");
  r.role = m.value("role", "candidate");
  r.baseline = m.value("baseline", "");
  r.clock = m.value("clock", "host");
  r.median_ms = m.value("median_ms", 0.0);
  r.p10_ms = m.value("p10_ms", 0.0);
  r.p90_ms = m.value("p90_ms", 0.0);
  r.mean_ms = m.value("mean_ms", 0.0);
  r.samples = m.value("samples", std::int64_t{0});
  r.rel_noise = m.value("rel_noise", 0.0);
  r.speedup = number_at(m, "speedup");
  r.method = m.value("method", "");
  r.host_median_ms = number_at(m, "host_median_ms");
  r.throttled = m.value("throttled", std::int64_t{0});
  r.sm_clock_mhz = number_at(m, "sm_clock_mhz");
  r.power_capped = m.value("power_capped", std::int64_t{0});
  return r;
}

} // namespace arbiter::store
