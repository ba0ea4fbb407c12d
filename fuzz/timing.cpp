// A shape's timing record (docs/protocol.md): the reference's timing/<shape>.json, and the
// candidate's record handed over on the channel, read by the judge (runtime::parse_timing_record,
// src/judge/timing_record.cpp), then written back as the runtime writes it.
#include "detail/timing_record.hpp"
#include "detail/probe_evidence.hpp"
#include "fuzz_input.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace arbiter::judge;
  using namespace arbiter::judge::detail;
  const nlohmann::json doc = read_timing_json(arbiter::fuzz::as_file(data, size));
  const auto record = arbiter::runtime::parse_timing_record(doc);
  if (!record) return 0;
  (void)measurement_of(*record);
  (void)dropped_samples(*record);
  (void)timer_held(*record);
  (void)to_json(*record).dump();
  return 0;
}
