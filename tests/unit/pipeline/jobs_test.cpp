// What the orchestrator hands each runner before it starts: the job's timing settings, the runner's
// environment, the reference's cache identity, the probe's setup and the sandbox's view.
#include "detail/jobs.hpp"
#include "detail/probe_setup.hpp"
#include "detail/runs.hpp"
#include "detail/sandbox_view.hpp"
#include "../python_list.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

namespace fs = std::filesystem;
using namespace arbiter;
using namespace arbiter::pipeline;

TEST(probe_setup, only_cuda_runs_get_a_probe_that_loads) {
  eval_options options;
  runner_paths paths;
  paths.runtime_lib = "/nonexistent/lib/libarbiter_runtime.so";
  const detail::job_context cpu{options, paths, "cpu", {}};
  EXPECT_EQ(detail::probe_for(cpu, "/tmp/probe.json").status, "");
  const detail::job_context cuda{options, paths, "cuda", {}};
  ::setenv("ARBITER_PROBE", "off", 1);
  EXPECT_EQ(detail::probe_for(cuda, "/tmp/probe.json").status, "unavailable: disabled by ARBITER_PROBE=off");
  ::unsetenv("ARBITER_PROBE"); // on by default on cuda
  const auto missing = detail::probe_for(cuda, "/tmp/probe.json");
  EXPECT_FALSE(missing.enabled());
  EXPECT_NE(missing.status.find("unavailable: /nonexistent/lib/libarbiter_probe.so not built"), std::string::npos)
      << missing.status;
  ::setenv("ARBITER_PROBE_LIB", "off", 1);
  EXPECT_EQ(detail::probe_for(cuda, "/tmp/probe.json").status, "unavailable: disabled by ARBITER_PROBE_LIB");
  // Any library that loads stands in for the probe: the runtime library beside this test.
  const fs::path loadable = fs::canonical("/proc/self/exe").parent_path().parent_path() / "lib" / "libarbiter_runtime.so";
  ASSERT_TRUE(fs::exists(loadable)) << loadable;
  ::setenv("ARBITER_PROBE_LIB", loadable.c_str(), 1);
  const auto probe = detail::probe_for(cuda, "/eval/outputs/probe.json");
  EXPECT_EQ(probe.status, "enabled");
  sandbox::process_spec spec;
  spec.sandbox.enabled = true;
  detail::apply_probe(probe, spec);
  EXPECT_EQ(spec.env["CUDA_INJECTION64_PATH"], loadable.string());
  EXPECT_EQ(spec.env["ARBITER_PROBE_OUT"], "/eval/outputs/probe.json");
  EXPECT_EQ(spec.sandbox.exposed_paths, std::vector<std::string>{loadable.parent_path().string()});
  ::unsetenv("ARBITER_PROBE_LIB");
  ::unsetenv("ARBITER_PROBE");
}

TEST(jobs, cuda_warms_up_by_time_samples_longer_and_rests_and_cpu_keeps_the_short_loop) {
  eval_options options;
  options.timing.max_time_s = 0.2; // --max-time still caps the longer cuda minimum (the runtime's rule)
  const runner_paths paths;
  const auto timing = [&](const char* device) {
    return detail::candidate_job({options, paths, device, {}}, "/s/solution.py", "/r", "/e")["timing"];
  };
  EXPECT_EQ(timing("cuda")["warmup_time_s"], options.timing.warmup_time_s);
  EXPECT_EQ(timing("cuda")["min_time_s"], options.timing.cuda_min_time_s);
  EXPECT_EQ(timing("cuda")["max_time_s"], 0.2);
  EXPECT_EQ(timing("cuda")["rest_ratio"], 0.5);
  EXPECT_EQ(timing("cpu")["warmup_time_s"], 0.0);
  EXPECT_EQ(timing("cpu")["min_time_s"], options.timing.min_time_s);
  EXPECT_EQ(timing("cpu")["rest_ratio"], 0.0);
  options.timing.min_time_s = 0.8; // a longer minimum asked for is kept on cuda too
  EXPECT_EQ(timing("cuda")["min_time_s"], 0.8);
}

// The runner applies the job's timing keys over the runtime's defaults and refuses any other
// (python/arbiter_runner/timing.py): the two sides' key lists must be one list.
TEST(jobs, the_timing_keys_written_are_the_runners_list) {
  const auto runner = python_tuple(fs::path(ARBITER_SOURCE_DIR) / "python" / "arbiter_runner" / "runtime.py", "TIMING_KEYS");
  ASSERT_FALSE(runner.empty());
  eval_options options;
  const runner_paths paths;
  for (const char* device : {"cpu", "cuda"}) {
    const nlohmann::json job = detail::candidate_job({options, paths, device, {}}, "/s", "/r", "/e");
    std::set<std::string> written;
    for (const auto& [key, value] : job.at("timing").items()) written.insert(key);
    EXPECT_EQ(written, runner) << device;
  }
}

TEST(jobs, cpu_runners_get_one_thread_poisoned_allocations_and_a_heap_that_stays) {
  eval_options options;
  options.python = "/usr/bin/python3";
  const runner_paths paths;
  const auto env = [&](const char* device) { return detail::runner_environment({options, paths, device, {}}, "/c", "/h"); };
  const auto cpu = env("cpu");
  EXPECT_EQ(cpu.at("MALLOC_PERTURB_"), "1"); // 0xFE in every fresh allocation: S2's poison on cpu
  EXPECT_EQ(cpu.at("OMP_NUM_THREADS"), "1");
  EXPECT_EQ(cpu.at("MALLOC_MMAP_THRESHOLD_"), "33554432");
  EXPECT_EQ(cpu.at("MALLOC_TRIM_THRESHOLD_"), std::to_string(1ull << 40));
  const auto cuda = env("cuda"); // the GPU does the work there: the host's allocator and threads stay as they are
  for (const char* name : {"MALLOC_PERTURB_", "OMP_NUM_THREADS", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"})
    EXPECT_FALSE(cuda.contains(name)) << name;
}

TEST(jobs, a_cpu_reference_is_cached_under_the_thread_and_allocator_settings_it_was_timed_with) {
  eval_options options;
  const runner_paths paths;
  const catalog::problem problem;
  const auto identity = [&](const char* device) {
    const detail::job_context ctx{options, paths, device, {}};
    return detail::reference_identity(ctx, nlohmann::json{{"device", device}}, problem, "hw", false);
  };
  const auto cpu = identity("cpu");
  ASSERT_TRUE(cpu.contains("cpu_environment"));
  EXPECT_EQ(cpu["cpu_environment"]["OMP_NUM_THREADS"], "1");
  EXPECT_EQ(cpu["cpu_environment"]["MALLOC_TRIM_THRESHOLD_"], std::to_string(1ull << 40));
  EXPECT_FALSE(identity("cuda").contains("cpu_environment"));
}

TEST(sandbox_view, each_model_runs_as_its_own_uid) {
  const fs::path a = "/data/cache/model-a", b = "/data/cache/model-b";
  EXPECT_EQ(detail::sandbox_uid_for(a), detail::sandbox_uid_for(a)); // its build and its run agree
  EXPECT_NE(detail::sandbox_uid_for(a), detail::sandbox_uid_for(b));
  for (const auto& cache : {a, b}) {
    EXPECT_GE(detail::sandbox_uid_for(cache), detail::k_sandbox_uid_base);
    EXPECT_LT(detail::sandbox_uid_for(cache), detail::k_sandbox_uid_base + detail::k_sandbox_uid_span);
  }
  eval_options options;
  options.sandbox = true;
  runner_paths paths;
  const detail::job_context ctx{options, paths, "cpu", {}};
  const auto isolation = detail::candidate_isolation(ctx, {"/data", "/data/evals/1", a, "/data/ref/exchange"});
  if (::geteuid() == 0) { // unmapped uids fall back elsewhere
    EXPECT_EQ(isolation.uid, detail::sandbox_uid_for(a));
  }
  EXPECT_NE(std::find(isolation.writable_paths.begin(), isolation.writable_paths.end(), a.string()),
            isolation.writable_paths.end());
}

// The runner refuses a key outside its mode's list (python/arbiter_runner/job.py): each writer here
// writes exactly the keys of its mode's list.
namespace {

std::set<std::string> keys_of(const nlohmann::json& job) {
  std::set<std::string> keys;
  for (const auto& [key, value] : job.items()) keys.insert(key);
  return keys;
}

std::set<std::string> runner_job_keys(const std::string& list) {
  return python_tuple(fs::path(ARBITER_SOURCE_DIR) / "python" / "arbiter_runner" / "job.py", list);
}

} // namespace

TEST(jobs, each_job_written_has_the_keys_of_the_runners_list_for_its_mode) {
  eval_options options;
  const runner_paths paths;
  catalog::problem problem;
  problem.dtype = "float32";
  for (const char* device : {"cpu", "cuda"}) {
    const detail::job_context ctx{options, paths, device, {}};
    EXPECT_EQ(keys_of(detail::reference_job(ctx, problem, {1, 2}, "/r")), runner_job_keys("REFERENCE_JOB")) << device;
    EXPECT_EQ(keys_of(detail::candidate_job(ctx, "/s", "/r", "/e")), runner_job_keys("CANDIDATE_JOB")) << device;
    EXPECT_EQ(keys_of(detail::build_job(ctx, "/b")), runner_job_keys("BUILD_JOB")) << device;
    EXPECT_EQ(keys_of(detail::calibrate_job(ctx, options.timing, "/w")), runner_job_keys("CALIBRATE_JOB")) << device;
  }
  EXPECT_FALSE(runner_job_keys("BUILD_JOB").empty());
}
