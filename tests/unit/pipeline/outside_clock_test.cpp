#include "detail/outside_clock.hpp"

#include "arbiter/common/frames.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

namespace fs = std::filesystem;
using namespace arbiter;
using namespace arbiter::pipeline::detail;

namespace {

class outside_clock_fixture : public ::testing::Test {
protected:
  void SetUp() override {
    m_root = fs::temp_directory_path() / ("arbiter_outside_" + std::to_string(::getpid()));
    fs::remove_all(m_root);
    fs::create_directories(m_root / "ref/outside-sets/0");
    for (const char* name : {"0.arbb", "1.arbb", "2.arbb"}) std::ofstream(m_root / "ref/outside-sets/0" / name) << "set";
    fs::create_directories(m_root / "eval");
    std::ofstream(m_root / "eval/events.jsonl").close();
  }
  void TearDown() override { fs::remove_all(m_root); }
  outside_paths paths() const { return candidate_outside(m_root / "ref", m_root / "eval"); }
  void emit(const nlohmann::json& event) {
    std::ofstream(m_root / "eval/events.jsonl", std::ios::app) << encode_frame(m_seq++, event);
  }
  fs::path m_root;
  std::uint64_t m_seq = 0;
};

} // namespace

// The runner's side, played by this thread: ask, wait for the go, find the sets, answer.
TEST_F(outside_clock_fixture, a_batch_is_timed_from_the_go_to_the_answer_and_its_outputs_kept) {
  outside_clock clock(paths());
  const int go = ::open(paths().fifo.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(go, 0);
  EXPECT_FALSE(fs::exists(m_root / "eval/outside/in/0/0.arbb")); // nothing to read before the go
  emit({{"event", "outside_ready"}, {"shape_idx", 0}, {"label", "candidate"}});
  char byte = 0;
  ASSERT_EQ(::read(go, &byte, 1), 1);
  ::close(go);
  EXPECT_TRUE(fs::exists(m_root / "eval/outside/in/0/2.arbb"));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  fs::create_directories(m_root / "eval/outside/out/0/candidate");
  std::ofstream(m_root / "eval/outside/out/0/candidate/0.arbb") << "answer";
  fs::create_symlink(m_root / "ref/outside-sets/0/1.arbb", m_root / "eval/outside/out/0/candidate/1.arbb");
  emit({{"event", "outside_done"}, {"shape_idx", 0}, {"label", "candidate"}, {"calls", 3}});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto record = clock.stop();
  const auto batch = find_batch(record, 0, "candidate");
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->calls, 3);
  EXPECT_GE(batch->wall_ms, 20.0);
  EXPECT_TRUE(record.faults.empty());
  EXPECT_TRUE(fs::exists(m_root / "eval/outside-kept/0/candidate/0.arbb"));
  EXPECT_FALSE(fs::exists(m_root / "eval/outside-kept/0/candidate/1.arbb")); // a link is not followed
  const auto stored = read_outside(m_root / "eval/outside.json");
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->batches.size(), 1u);
}

TEST_F(outside_clock_fixture, events_out_of_order_are_faults_and_an_unfinished_batch_has_no_wall) {
  outside_clock clock(paths());
  emit({{"event", "outside_done"}, {"shape_idx", 0}, {"label", "candidate"}});
  emit({{"event", "outside_ready"}, {"shape_idx", 0}, {"label", "candidate"}});
  emit({{"event", "outside_ready"}, {"shape_idx", 0}, {"label", "candidate"}});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto record = clock.stop();
  EXPECT_EQ(record.faults.size(), 2u);
  EXPECT_FALSE(find_batch(record, 0, "candidate")); // announced, never answered
}
