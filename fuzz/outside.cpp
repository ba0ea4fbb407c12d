// The outside clock's record (outside.json beside the channel, src/pipeline/outside_clock.cpp),
// read back by the judge and by re-judging; and the same bytes as an `outside_done` event whose
// output declaration the clock's thread reads (src/pipeline/outside_outputs.cpp).
#include "detail/outside_clock.hpp"
#include "detail/outside_outputs.hpp"
#include "fuzz_input.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace arbiter::pipeline::detail;
  const auto event = nlohmann::json::parse(data, data + size, nullptr, false);
  (void)parse_declared(event);
  const auto record = read_outside(arbiter::fuzz::as_file(data, size));
  if (!record) return 0;
  (void)find_batch(*record, 0, "candidate");
  (void)to_json(*record);
  return 0;
}
