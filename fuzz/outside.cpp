// The outside clock's record (outside.json beside the channel, src/pipeline/outside_clock.cpp),
// read back by the judge and by re-judging.
#include "detail/outside_clock.hpp"
#include "fuzz_input.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace arbiter::pipeline::detail;
  const auto record = read_outside(arbiter::fuzz::as_file(data, size));
  if (!record) return 0;
  (void)find_batch(*record, 0, "candidate");
  (void)to_json(*record);
  return 0;
}
