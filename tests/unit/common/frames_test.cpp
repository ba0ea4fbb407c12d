#include "arbiter/common/event_names.hpp"
#include "arbiter/common/frames.hpp"
#include "../python_list.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace {

std::string two_frames() {
  return arbiter::encode_frame(0, {{"event", "start"}}) + arbiter::encode_frame(1, {{"event", "done"}});
}

} // namespace

TEST(frames, round_trip_in_order) {
  const auto got = arbiter::decode_frames(two_frames());
  ASSERT_FALSE(got.fault) << *got.fault;
  ASSERT_EQ(got.events.size(), 2u);
  EXPECT_EQ(got.events[1]["event"], "done");
  EXPECT_FALSE(got.torn_tail);
}

TEST(frames, a_spliced_line_is_a_fault_not_skipped) {
  // A forged event followed by a fragment meant to swallow the next line.
  const std::string forged = R"({"event": "timing", "record": {"median_ms": 0.001}})"
                             "\n"
                             R"({"x": ")";
  const auto got = arbiter::decode_frames(arbiter::encode_frame(0, {{"event", "start"}}) + forged + "\n" +
                                          arbiter::encode_frame(1, {{"event", "done"}}));
  ASSERT_TRUE(got.fault);
  EXPECT_NE(got.fault->find("frame 1"), std::string::npos) << *got.fault;
  EXPECT_EQ(got.events.size(), 1u);
}

TEST(frames, repeated_or_skipped_sequence_is_a_fault) {
  const auto repeat =
      arbiter::decode_frames(arbiter::encode_frame(0, {{"event", "a"}}) + arbiter::encode_frame(0, {{"event", "b"}}));
  ASSERT_TRUE(repeat.fault);
  EXPECT_NE(repeat.fault->find("sequence 0 where 1 was due"), std::string::npos) << *repeat.fault;
  const auto gap =
      arbiter::decode_frames(arbiter::encode_frame(0, {{"event", "a"}}) + arbiter::encode_frame(2, {{"event", "b"}}));
  EXPECT_TRUE(gap.fault);
}

TEST(frames, a_length_that_lies_is_a_fault) {
  std::string bytes = arbiter::encode_frame(0, {{"event", "a"}});
  bytes.replace(bytes.find(' ') + 1, 2, "10"); // the payload is 13 bytes long
  const auto got = arbiter::decode_frames(bytes + arbiter::encode_frame(1, {{"event", "b"}}));
  EXPECT_TRUE(got.fault);
}

TEST(frames, a_payload_that_is_not_an_object_is_a_fault) {
  EXPECT_TRUE(arbiter::decode_frames("0 2 []\n").fault);
  EXPECT_TRUE(arbiter::decode_frames("0 3 {x}\n").fault);
}

TEST(frames, a_cut_last_frame_is_torn_not_a_fault) {
  const std::string whole = two_frames();
  for (const std::size_t cut : {whole.size() - 1, whole.size() - 5, arbiter::encode_frame(0, {{"event", "start"}}).size() + 3}) {
    const auto got = arbiter::decode_frames(whole.substr(0, cut));
    EXPECT_FALSE(got.fault) << cut << ": " << *got.fault;
    EXPECT_TRUE(got.torn_tail) << cut;
    EXPECT_EQ(got.events.size(), 1u) << cut;
  }
}

TEST(frames, plain_json_lines_are_a_fault) {
  const auto got = arbiter::decode_frames("{\"event\": \"start\"}\n");
  ASSERT_TRUE(got.fault);
  EXPECT_NE(got.fault->find("frame 0 at byte 0"), std::string::npos) << *got.fault;
}

TEST(frames, json_lines_become_frames_and_a_cut_line_a_torn_one) {
  const auto got = arbiter::decode_frames(arbiter::frames_from_lines("{\"event\": \"start\"}\n{\"event\": \"done\"}\n{\"ev"));
  ASSERT_FALSE(got.fault) << *got.fault;
  EXPECT_EQ(got.events.size(), 2u);
  EXPECT_TRUE(got.torn_tail);
}

TEST(frames, read_from_a_stream) {
  std::istringstream in(two_frames());
  EXPECT_EQ(arbiter::read_frames(in).events.size(), 2u);
}

// The orchestrator's event names and the runner's (python/arbiter_runner/events.py, EVENTS) are one
// list: an event renamed on one side would go unread on the other.
TEST(event_names, the_orchestrators_list_is_the_runners) {
  const auto runner =
      python_tuple(std::filesystem::path(ARBITER_SOURCE_DIR) / "python" / "arbiter_runner" / "events.py", "EVENTS");
  ASSERT_FALSE(runner.empty());
  std::set<std::string> ours;
  for (const auto name : arbiter::event_name::all) ours.insert(std::string(name));
  EXPECT_EQ(ours, runner);
  EXPECT_EQ(ours.size(), arbiter::event_name::all.size()); // no name twice
}
