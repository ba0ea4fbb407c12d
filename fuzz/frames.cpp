// The runner's event channel (arbiter/common/frames.hpp) and the events read from it
// (include/arbiter/judge/events.hpp): a candidate writes these bytes on descriptor 3.
#include "arbiter/common/frames.hpp"
#include "arbiter/judge/events.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const arbiter::frame_stream frames = arbiter::decode_frames(bytes);
  if (frames.bytes != size || (frames.fault && frames.torn_tail)) std::abort(); // the reader's own promises
  const auto events = arbiter::judge::events_of(frames);
  for (std::size_t shape_idx = 0; shape_idx < 4; ++shape_idx) {
    (void)arbiter::judge::shape_events(events.timings, shape_idx);
    (void)arbiter::judge::shape_events(events.cases, shape_idx);
  }
  return 0;
}
