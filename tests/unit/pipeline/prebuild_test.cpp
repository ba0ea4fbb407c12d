// The build stage's schedule without real builds: each solution built once, in order, and an
// evaluation that asks for its build gets it done, waiting for it or building it itself.
#include "detail/prebuild.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

using namespace arbiter;
using namespace arbiter::pipeline::detail;

namespace {

std::vector<catalog::solution> solutions(int count) {
  std::vector<catalog::solution> out(count);
  for (int idx = 0; idx < count; ++idx) {
    out[idx].problem_id = "p";
    out[idx].model = "m" + std::to_string(idx);
  }
  return out;
}

std::vector<const catalog::solution*> pointers(const std::vector<catalog::solution>& all) {
  std::vector<const catalog::solution*> out;
  for (const auto& s : all) out.push_back(&s);
  return out;
}

/// Counts builds per model; a build of a model in `held` waits until release().
class fake_builds {
 public:
  std::set<std::string> held;
  std::set<std::string> failing;

  build_outcome build(const catalog::solution& s) {
    {
      std::unique_lock lock(m_mutex);
      ++m_count[s.model];
      m_order.push_back(s.model);
      m_released.wait(lock, [&] { return m_open || !held.contains(s.model); });
    }
    if (failing.contains(s.model)) return {false, "SyntaxError: bad kernel", 0.5};
    if (s.model == "throws") throw std::runtime_error("no space left on device");
    return {true, "", 1.5};
  }
  prebuilder::build_fn fn() {
    return [this](const catalog::solution& s) { return build(s); };
  }
  void release() {
    {
      std::lock_guard lock(m_mutex);
      m_open = true;
    }
    m_released.notify_all();
  }
  int count(const std::string& model) {
    std::lock_guard lock(m_mutex);
    return m_count[model];
  }
  std::vector<std::string> order() {
    std::lock_guard lock(m_mutex);
    return m_order;
  }

 private:
  std::mutex m_mutex;
  std::condition_variable m_released;
  bool m_open = false;
  std::map<std::string, int> m_count;
  std::vector<std::string> m_order;
};

} // namespace

TEST(Prebuild, BuildsEverySolutionOnceInOrderAndHandsEachItsOutcome) {
  const auto all = solutions(4);
  fake_builds fake;
  prebuilder stage(pointers(all), 1, fake.fn());
  while (fake.order().size() < all.size()) std::this_thread::yield(); // the worker reaches every one
  for (const auto& s : all) {
    const build_wait got = stage.wait_for(s);
    EXPECT_TRUE(got.outcome.ok) << s.model;
    EXPECT_EQ(got.by, "stage");
    EXPECT_DOUBLE_EQ(got.outcome.build_s, 1.5);
    EXPECT_GE(got.waited_s, 0.0);
  }
  EXPECT_EQ(fake.order(), (std::vector<std::string>{"m0", "m1", "m2", "m3"}));
  for (const auto& s : all) EXPECT_EQ(fake.count(s.model), 1) << s.model;
}

TEST(Prebuild, AnEvaluationWaitsForItsBuildInFlight) {
  const auto all = solutions(1);
  fake_builds fake;
  fake.held = {"m0"};
  prebuilder stage(pointers(all), 1, fake.fn());
  while (fake.count("m0") == 0) std::this_thread::yield(); // in flight: the worker has it (else the turn builds it)
  auto waiting = std::async(std::launch::async, [&] { return stage.wait_for(all[0]); });
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout)
      << "the candidate's gate must not open while its build runs";
  fake.release();
  const build_wait got = waiting.get();
  EXPECT_TRUE(got.outcome.ok);
  EXPECT_EQ(got.by, "stage");
  EXPECT_GT(got.waited_s, 0.05);
  EXPECT_EQ(fake.count("m0"), 1) << "waiting for a build must not start a second one";
}

TEST(Prebuild, ABuildNoWorkerReachedIsBuiltAtItsTurn) {
  const auto all = solutions(3);
  fake_builds fake;
  fake.held = {"m0"}; // the only worker stays on m0
  prebuilder stage(pointers(all), 1, fake.fn());
  while (fake.count("m0") == 0) std::this_thread::yield();
  const build_wait got = stage.wait_for(all[2]);
  EXPECT_TRUE(got.outcome.ok);
  EXPECT_EQ(got.by, "turn");
  fake.release();
  EXPECT_TRUE(stage.wait_for(all[1]).outcome.ok);
  EXPECT_EQ(fake.count("m2"), 1) << "the worker must not build again what the turn built";
  EXPECT_EQ(fake.order(), (std::vector<std::string>{"m0", "m2", "m1"}));
}

TEST(Prebuild, AFailedBuildIsRecordedForItsEvaluation) {
  auto all = solutions(2);
  all[1].model = "throws";
  fake_builds fake;
  fake.failing = {"m0"};
  prebuilder stage(pointers(all), 2, fake.fn());
  const build_wait failed = stage.wait_for(all[0]);
  EXPECT_FALSE(failed.outcome.ok);
  EXPECT_EQ(failed.outcome.error, "SyntaxError: bad kernel");
  const build_wait threw = stage.wait_for(all[1]);
  EXPECT_FALSE(threw.outcome.ok);
  EXPECT_EQ(threw.outcome.error, "no space left on device");
}

TEST(Prebuild, ASolutionTheStageWasNotGivenHasNothingToWaitFor) {
  const auto given = solutions(1);
  const auto other = solutions(1);
  fake_builds fake;
  prebuilder stage(pointers(given), 1, fake.fn());
  const build_wait got = stage.wait_for(other[0]);
  EXPECT_EQ(got.by, "");
  EXPECT_EQ(got.waited_s, 0.0);
}

TEST(Prebuild, RunsWhereTorchReusesABuildUnlessTold) {
  EXPECT_FALSE(reuses_extension_builds("1.13.0a0+git7c98e70")); // Debian's: rewrites load_inline's sources
  EXPECT_FALSE(reuses_extension_builds("2.0.1+cu118"));
  EXPECT_TRUE(reuses_extension_builds("2.1.0"));
  EXPECT_TRUE(reuses_extension_builds("2.11.0+cu130"));
  EXPECT_TRUE(reuses_extension_builds("3.0"));
  EXPECT_TRUE(reuses_extension_builds("")) << "unknown: a current torch";
  const auto policy = [](const char* setting, const char* torch, const char* device = "cuda") {
    const build_policy p = build_policy_for(setting, torch, device);
    return std::pair{p.stage, p.wait};
  };
  EXPECT_EQ(policy("auto", "1.13.1"), std::pair(true, false)) << "a candidate may still join a build under way";
  EXPECT_EQ(policy("auto", "2.11.0"), std::pair(true, true));
  EXPECT_EQ(policy("on", "1.13.1"), std::pair(true, true));
  EXPECT_EQ(policy("off", "2.11.0"), std::pair(false, false));
  // On cpu the candidate's calls are timed on the host: no compile beside them unless asked for.
  EXPECT_EQ(policy("auto", "1.13.1", "cpu"), std::pair(false, false));
  EXPECT_EQ(policy("auto", "2.11.0", "cpu"), std::pair(false, false));
  EXPECT_EQ(policy("on", "1.13.1", "cpu"), std::pair(true, true));
}
