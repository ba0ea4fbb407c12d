#pragma once
/// The build stage: imports each solution in a throw-away process (`arbiter_runner build`) so that
/// its extension builds fill the model's cache on CPU cores while the GPU is busy with earlier
/// evaluations. An evaluation waits for its solution's build before its candidate's gate opens
/// (wait_for), so that no compile runs on the GPU's time inside the candidate process; how long it
/// waited is recorded (docs/measurement.md, "Throughput"). A build's failure is recorded, not
/// judged: the candidate run meets the same error and turns it into the verdict.
#include "arbiter/catalog/solution.hpp"
#include "detail/jobs.hpp"

#include <condition_variable>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace arbiter::pipeline::detail {

/// What became of one solution's build.
struct build_outcome {
  bool ok = false;
  std::string error;  ///< why not, one line, when !ok
  double build_s = 0; ///< the build process's wall time
};

/// What an evaluation met when it asked for its solution's build.
struct build_wait {
  build_outcome outcome;
  double waited_s = 0; ///< from the request until the build was done
  /// "stage": a build worker had it done or under way; "turn": no worker had reached it, so it was
  /// built on the asking thread, at its evaluation's turn.
  std::string by;
};

class prebuilder {
 public:
  using build_fn = std::function<build_outcome(const catalog::solution&)>;

  /// Starts `workers` threads that build `solutions` in order, each with `build` (which must be
  /// callable from several threads at once).
  prebuilder(std::vector<const catalog::solution*> solutions, unsigned workers, build_fn build);
  /// Waits for builds in flight; builds not yet started are dropped.
  ~prebuilder();
  prebuilder(const prebuilder&) = delete;
  prebuilder& operator=(const prebuilder&) = delete;

  /// Blocks until `solution`'s build is done, building it on this thread when no worker has
  /// started it. A solution the stage was not given has nothing to wait for: by is "".
  build_wait wait_for(const catalog::solution& solution);

 private:
  enum class state { pending, running, done };
  struct slot {
    const catalog::solution* solution = nullptr;
    state now = state::pending;
    build_outcome outcome;
  };

  void work();
  /// Runs slot idx's build (claimed: running) outside the lock, then marks it done.
  void build(std::size_t idx);

  build_fn m_build;
  std::vector<slot> m_slots;
  std::size_t m_next = 0; ///< no slot before it is pending
  bool m_stop = false;
  std::mutex m_mutex;
  std::condition_variable m_done;
  std::vector<std::thread> m_threads;
};

/// Imports `solution` in build mode, sandboxed like its candidate run, under data_dir/build/.
build_outcome build_solution(const job_context& ctx, const catalog::solution& solution, const std::filesystem::path& data_dir);

/// Whether an import with this torch finds a build made ahead: before 2.1, `load_inline` rewrites
/// its sources at every import and ninja compiles them again (pytorch/pytorch#68066). An empty or
/// unreadable version counts as a current torch.
bool reuses_extension_builds(const std::string& torch_version);

/// What a campaign does with the build stage.
struct build_policy {
  bool stage = true; ///< builds run ahead on CPU cores
  /// each candidate's gate waits for its build. Without it (a torch that does not reuse builds), a
  /// candidate whose build is under way waits on the build's lock inside torch and loads it, and one
  /// whose build is done compiles again.
  bool wait = true;
};

/// setting is --prebuild's value: on (stage and wait), off (neither), auto (on cuda the stage, and
/// the wait where torch reuses builds; on cpu neither, since a compile beside the candidate would
/// share the CPU its calls are timed on, as a candidate started ahead would).
build_policy build_policy_for(const std::string& setting, const std::string& torch_version, const std::string& device);

/// Threads for the build stage: a quarter of the cores, at least one.
unsigned prebuild_workers();

} // namespace arbiter::pipeline::detail
