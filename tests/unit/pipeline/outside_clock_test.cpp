#include "detail/outside_clock.hpp"

#include "arbiter/common/frames.hpp"
#include "arbiter/runtime/arbiter_runtime.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
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

// The runner's side, played by this thread: ask, wait for the go, find the sets, answer with where
// its outputs lie (in this very process), wait for the release.
TEST_F(outside_clock_fixture, a_batch_is_timed_from_the_go_to_the_answer_and_its_outputs_read_from_memory) {
  std::vector<std::string> holds;
  sandbox::process_access access;
  access.hold = [&holds](bool held) {
    holds.push_back(held ? "hold" : "let go");
    return true;
  };
  access.host_pid = [](int pid) { return pid == 4242 ? std::optional<int>(::getpid()) : std::nullopt; };
  auto cpu_reads = std::make_shared<double>(0.0);
  access.cpu_ms = [cpu_reads] { return std::optional<double>(*cpu_reads += 1.5); }; // 1.5 ms between reads
  // Two threads: the runner's, idle, and a worker that ran 1.2 ms between the two readings.
  auto thread_reads = std::make_shared<int>(0);
  access.threads = [thread_reads] {
    const std::uint64_t worker = (*thread_reads)++ == 0 ? 5'000'000 : 6'200'000;
    return std::vector<arbiter::sandbox::thread_sample>{{7, 7, "python3", 9'000'000}, {7, 8, "prefetch", worker}};
  };
  outside_clock clock(paths(), access);
  const int go = ::open(paths().fifo.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(go, 0);
  EXPECT_FALSE(fs::exists(m_root / "eval/outside/in/0/0.arbb")); // nothing to read before the go
  emit({{"event", "outside_ready"}, {"shape_idx", 0}, {"label", "candidate"}});
  char byte = 0;
  ASSERT_EQ(::read(go, &byte, 1), 1);
  EXPECT_TRUE(fs::exists(m_root / "eval/outside/in/0/2.arbb"));
  // A copy, not a link: the process writing its set changes nothing of the reference's.
  std::ofstream(m_root / "eval/outside/in/0/2.arbb", std::ios::trunc) << "forged";
  EXPECT_EQ(fs::file_size(m_root / "ref/outside-sets/0/2.arbb"), 3u);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::vector<float> first{1.5f, -2.0f, 3.25f, 0.0f, 7.0f, 8.0f};
  const std::vector<std::int32_t> second{9, 10};
  const auto tensor = [](const auto& values, int dtype, nlohmann::json shape) {
    return nlohmann::json{{"dtype", dtype},
                          {"shape", std::move(shape)},
                          {"address", reinterpret_cast<std::uintptr_t>(values.data())},
                          {"nbytes", values.size() * sizeof(values[0])}};
  };
  emit({{"event", "outside_done"},
        {"shape_idx", 0},
        {"label", "candidate"},
        {"calls", 2},
        {"pid", 4242},
        {"outputs", {{tensor(first, ARB_F32, {2, 3})}, {tensor(second, ARB_I32, {2})}}}});
  ASSERT_EQ(::read(go, &byte, 1), 1); // released once the outputs are read
  ::close(go);
  const auto record = clock.stop();
  const auto batch = find_batch(record, 0, "candidate");
  ASSERT_TRUE(batch);
  EXPECT_GE(batch->wall_ms, 20.0);
  EXPECT_TRUE(record.faults.empty()) << record.faults.front();
  EXPECT_EQ(holds, (std::vector<std::string>{"hold", "let go"}));
  // The CPU account read at the go and the answer, and twice more around the quiet window after
  // the process was let go, before its release.
  ASSERT_TRUE(batch->cpu_ms && batch->busy_ms);
  EXPECT_DOUBLE_EQ(*batch->cpu_ms, 1.5);
  EXPECT_DOUBLE_EQ(*batch->busy_ms, 1.5);
  // Its threads read around the same window: the one that ran is named, the idle one is not.
  EXPECT_EQ(batch->threads, 2);
  EXPECT_EQ(batch->busy_threads, (std::vector<std::string>{"prefetch (tid 8): 1.2 ms"}));
  ASSERT_TRUE(batch->threads_busy_ms.has_value());
  EXPECT_NEAR(*batch->threads_busy_ms, 1.2, 1e-9); // the idle one adds nothing
  arb_reader* reader = nullptr;
  ASSERT_EQ(arb_reader_open((m_root / "eval/outside-kept/0/candidate/0.arbb").c_str(), &reader), ARB_OK) << arb_last_error();
  std::vector<float> kept(first.size());
  ASSERT_EQ(arb_reader_copy(reader, 0, kept.data(), kept.size() * sizeof(float)), ARB_OK) << arb_last_error();
  arb_reader_close(reader);
  EXPECT_EQ(kept, first);
  EXPECT_TRUE(fs::exists(m_root / "eval/outside-kept/0/candidate/1.arbb"));
  const auto stored = read_outside(m_root / "eval/outside.json");
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->batches.size(), 1u);
  EXPECT_EQ(stored->batches[0].busy_threads, batch->busy_threads); // and read back as written (rejudge)
  EXPECT_EQ(stored->batches[0].threads, 2);
  EXPECT_EQ(stored->batches[0].threads_busy_ms, batch->threads_busy_ms);
}

// What the process declares is the candidate's: a pid outside the evaluation, memory it does not
// have, a size over the cap are faults (H3), and the process is released all the same.
TEST_F(outside_clock_fixture, outputs_declared_out_of_reach_are_faults_and_the_process_is_still_released) {
  sandbox::process_access access;
  access.host_pid = [](int pid) { return pid == 1 ? std::optional<int>(::getpid()) : std::nullopt; };
  outside_clock clock(paths(), access);
  const int go = ::open(paths().fifo.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(go, 0);
  char byte = 0;
  const std::vector<nlohmann::json> answers{
      {{"pid", 77}, {"outputs", nlohmann::json::array({nlohmann::json::array()})}},
      {{"pid", 1}, {"outputs", {{{{"dtype", ARB_U8}, {"shape", {8}}, {"address", 8}, {"nbytes", 8}}}}}},
      {{"pid", 1}, {"outputs", {{{{"dtype", ARB_U8}, {"shape", {1}}, {"address", 8}, {"nbytes", std::uint64_t{1} << 40}}}}}},
      {{"pid", 1}, {"outputs", "all of them"}}};
  for (std::size_t shape_idx = 0; shape_idx < answers.size(); ++shape_idx) {
    fs::create_directories(m_root / "ref/outside-sets" / std::to_string(shape_idx));
    emit({{"event", "outside_ready"}, {"shape_idx", shape_idx}, {"label", "candidate"}});
    ASSERT_EQ(::read(go, &byte, 1), 1);
    auto done = answers[shape_idx];
    done.update({{"event", "outside_done"}, {"shape_idx", shape_idx}, {"label", "candidate"}});
    emit(done);
    ASSERT_EQ(::read(go, &byte, 1), 1) << shape_idx;
  }
  ::close(go);
  const auto record = clock.stop();
  ASSERT_EQ(record.faults.size(), 4u);
  EXPECT_NE(record.faults[0].find("process 77, which is not one of the evaluation's"), std::string::npos);
  EXPECT_NE(record.faults[1].find("could not be read"), std::string::npos) << record.faults[1];
  EXPECT_NE(record.faults[2].find("over 1024 MiB"), std::string::npos) << record.faults[2];
  EXPECT_NE(record.faults[3].find("no pid and outputs declared"), std::string::npos) << record.faults[3];
  EXPECT_FALSE(fs::exists(m_root / "eval/outside-kept/1/candidate/0.arbb"));
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

TEST_F(outside_clock_fixture, the_cpu_clock_given_is_read_at_the_go_and_at_the_answer) {
  double cpu_ms = 100;
  sandbox::process_access access;
  access.cpu_ms = [&cpu_ms] { return std::optional<double>(cpu_ms); };
  outside_clock clock(paths(), access);
  const int go = ::open(paths().fifo.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(go, 0);
  emit({{"event", "outside_ready"}, {"shape_idx", 0}, {"label", "candidate"}});
  char byte = 0;
  ASSERT_EQ(::read(go, &byte, 1), 1);
  ::close(go);
  cpu_ms = 112.5; // what the calls used, by the kernel's account (the clock's thread waits on the channel)
  emit({{"event", "outside_done"}, {"shape_idx", 0}, {"label", "candidate"}});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto batch = find_batch(clock.stop(), 0, "candidate");
  ASSERT_TRUE(batch && batch->cpu_ms);
  EXPECT_DOUBLE_EQ(*batch->cpu_ms, 12.5);
  const auto stored = find_batch(*read_outside(m_root / "eval/outside.json"), 0, "candidate");
  ASSERT_TRUE(stored && stored->cpu_ms);
  EXPECT_DOUBLE_EQ(*stored->cpu_ms, 12.5);
}

TEST_F(outside_clock_fixture, channel_members_of_another_type_are_ignored_not_thrown_from_the_clocks_thread) {
  outside_clock clock(paths());
  emit({{"event", "outside_ready"}, {"shape_idx", 0}, {"label", 5}});
  emit({{"event", 7}, {"shape_idx", 0}, {"label", "candidate"}});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto record = clock.stop(); // the process goes on: a throw here would have ended it
  EXPECT_TRUE(record.batches.empty() || record.batches.front().label.empty());
}

TEST(outside_record, a_stored_record_with_members_of_another_type_reads_them_as_missing) {
  // The fuzzer's finds (fuzz/regressions/outside): each threw out of the judge or was undefined.
  for (const char* text : {R"({"batches":[1]})", R"({"batches":[{"label":5}]})", R"({"batches":[{"finished":3.0}]})",
                           R"({"batches":[{"calls":1e300}]})", R"({"batches":{"a":1},"faults":3})"}) {
    const auto record = outside_from_json(nlohmann::json::parse(text));
    for (const auto& b : record.batches) {
      EXPECT_FALSE(b.finished) << text;
      EXPECT_EQ(b.calls, 0) << text;
    }
  }
}
