#pragma once
/// Job files for the runner (docs/protocol.md, "Job file"), one writer per mode but the suite check's
/// (suitecheck::make_job), and the environment its processes get. The runner's lists of the keys
/// each mode's job has (python/arbiter_runner/job.py) are held together with these writers by
/// tests/unit/pipeline/jobs_test.cpp.
#include "arbiter/catalog/problem.hpp"
#include "arbiter/catalog/solution.hpp"
#include "arbiter/judge/judge.hpp"
#include "arbiter/pipeline/options.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace arbiter::pipeline::detail {

struct job_context {
  const eval_options& options;
  const runner_paths& paths;
  std::string device;
  std::vector<catalog::shape> shapes; ///< the problem's shapes for this device
};

/// The settings of ctx the judge depends on (judge::judge_context).
judge::judge_context judge_context_of(const job_context& ctx);

/// The job file's "timing" object for a device (runtime::for_device): the warm-up by time and the
/// rest after each paced call on cuda, neither on cpu (docs/measurement.md, "Sampling"). Every job
/// that times on the device gets it, so that the reference, the candidates and the calibration's
/// peaks are measured in the same state of the GPU.
nlohmann::json job_timing(const timing_options& options, const std::string& device);

nlohmann::json reference_job(const job_context& ctx, const catalog::problem& problem, const std::vector<std::uint64_t>& seeds,
                             const std::filesystem::path& ref_dir);

/// The candidate's job names no seed, no reference file and no expected output.
nlohmann::json candidate_job(const job_context& ctx, const std::filesystem::path& entry, const std::filesystem::path& ref_dir,
                             const std::filesystem::path& eval_dir);

/// The import of a solution ahead of its evaluation (prebuild.hpp): its entry under dir/work.
nlohmann::json build_job(const job_context& ctx, const std::filesystem::path& dir);

/// The calibration's measurements of copy bandwidth and GEMM rates (arbiter/pipeline/calibrate.hpp).
nlohmann::json calibrate_job(const job_context& ctx, const timing_options& timing, const std::filesystem::path& work_dir);

/// glibc's largest mmap threshold on 64-bit hosts (HEAP_MAX_SIZE / 2): larger blocks are mapped
/// and unmapped per allocation whatever the setting.
inline constexpr std::uint64_t k_cpu_mmap_threshold = 32ull << 20;
inline constexpr std::uint64_t k_cpu_trim_threshold = 1ull << 40; ///< never trim the heap

/// On cpu: MALLOC_PERTURB_ (S2's poison), one OpenMP thread, and glibc thresholds that keep freed
/// heap in the process (docs/measurement.md, "On the CPU").
std::map<std::string, std::string> cpu_environment();

/// The whole environment of a runner process: a fixed PATH, the runner on PYTHONPATH, per-model
/// caches (torch extensions, Triton, CUDA JIT) under cache_dir, HOME = home, and a short list
/// of variables passed through from arbiter's own environment (CUDA_VISIBLE_DEVICES, CUDA_HOME, ...);
/// on cpu cpu_environment's.
std::map<std::string, std::string> runner_environment(const job_context& ctx, const std::filesystem::path& cache_dir,
                                                      const std::filesystem::path& home);

void write_json(const std::filesystem::path& file, const nlohmann::json& value);

} // namespace arbiter::pipeline::detail
