#pragma once
/// The build stage: imports each solution in a throw-away process (`arbiter_runner build`) so that
/// its extension builds and Triton warm-up fill the model's cache on CPU cores while the GPU is
/// busy with earlier evaluations. A build's failure is not recorded here: the candidate run meets
/// the same error and turns it into the verdict.
#include "arbiter/catalog/solution.hpp"
#include "arbiter/sandbox/process.hpp"
#include "detail/jobs.hpp"

#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

namespace arbiter::pipeline::detail {

class prebuilder {
public:
  /// Starts `workers` threads that build `solutions` in order. ctx must outlive the prebuilder.
  prebuilder(const job_context& ctx, std::vector<const catalog::solution*> solutions, std::filesystem::path data_dir,
             unsigned workers);
  /// Waits for builds in flight; builds not yet started are dropped.
  ~prebuilder();
  prebuilder(const prebuilder&) = delete;
  prebuilder& operator=(const prebuilder&) = delete;

private:
  void work();
  void build(const catalog::solution& solution);

  const job_context& m_ctx;
  std::vector<const catalog::solution*> m_solutions;
  std::filesystem::path m_data_dir;
  std::atomic<std::size_t> m_next{0};
  std::atomic<bool> m_stop{false};
  std::vector<std::thread> m_threads;
};

/// Threads for the build stage: a quarter of the cores, at least one.
unsigned prebuild_workers();

} // namespace arbiter::pipeline::detail
