// A shape's timing record (docs/protocol.md): the reference's timing/<shape>.json, and the
// candidate's record handed over on the channel, read by the judge (src/pipeline/timing_record.cpp).
#include "arbiter/common/json_number.hpp"
#include "detail/judge.hpp"
#include "detail/probe_evidence.hpp"
#include "fuzz_input.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace arbiter::pipeline::detail;
  const nlohmann::json doc = read_timing_json(arbiter::fuzz::as_file(data, size));
  (void)timing_record(doc);
  (void)dropped_samples(doc);
  if (doc.is_object()) (void)timer_held(doc);
  return 0;
}
