#include "detail/jobs.hpp"
#include "detail/outside_clock.hpp"

#include "arbiter/common/error.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <utility>

namespace arbiter::pipeline::detail {

namespace fs = std::filesystem;

namespace {

nlohmann::json common_job(const job_context& ctx, const std::string& mode) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const auto& s : ctx.shapes) shapes.push_back({{"name", s.name}, {"params", s.params}});
  nlohmann::json timing = job_timing(ctx.options.timing, ctx.device);
  timing["l2_flush_bytes"] = 0;
  return {
      {"mode", mode},
      {"device", ctx.device},
      {"runtime_lib", ctx.paths.runtime_lib.string()},
      {"weights_seed", ctx.options.weights_seed},
      {"num_seeds", ctx.options.num_seeds},
      {"shapes", shapes},
      {"guard", true}, // the guard's dynamic checks (docs/guard.md)
      {"timing", timing},
  };
}

} // namespace

judge::judge_context judge_context_of(const job_context& ctx) {
  return {ctx.device, ctx.shapes, ctx.options.num_seeds, ctx.options.static_rules};
}

nlohmann::json job_timing(const timing_options& options, const std::string& device) {
  const runtime::device_timing t = runtime::for_device(options, device == "cuda");
  return {{"warmup_calls", t.warmup_calls},        {"min_samples", t.rule.min_samples},
          {"max_samples", t.rule.max_samples},     {"min_time_s", t.rule.min_time_s},
          {"max_time_s", t.rule.max_time_s},       {"target_rel_noise", t.rule.target_rel_noise},
          {"warmup_time_s", t.rule.warmup_time_s}, {"rest_ratio", t.rule.rest_ratio}};
}

nlohmann::json reference_job(const job_context& ctx, const catalog::problem& problem, const std::vector<std::uint64_t>& seeds,
                             const fs::path& ref_dir) {
  nlohmann::json job = common_job(ctx, "reference");
  job["problem_file"] = problem.reference_file.string();
  job["seeds"] = seeds;
  job["stress_scales"] = problem.stress_scales;
  job["float64_check"] = problem.dtype == "float32";
  job["exchange_dir"] = (ref_dir / "exchange").string();
  job["sealed_dir"] = (ref_dir / "sealed").string();
  job["output_dir"] = (ref_dir / "expected").string();
  job["timing_dir"] = (ref_dir / "timing").string();
  job["events_file"] = (ref_dir / "events.jsonl").string();
  job["outside"] = outside_job(reference_outside(ref_dir));
  return job;
}

nlohmann::json candidate_job(const job_context& ctx, const fs::path& entry, const fs::path& ref_dir, const fs::path& eval_dir) {
  nlohmann::json job = common_job(ctx, "candidate");
  job["solution_file"] = entry.string();
  job["exchange_dir"] = (ref_dir / "exchange").string();
  job["sealed_dir"] = (eval_dir / "sealed").string();
  job["output_dir"] = (eval_dir / "outputs").string();
  job["timing_dir"] = (eval_dir / "timing").string();
  job["events_file"] = (eval_dir / "events.jsonl").string();
  job["outside"] = outside_job(candidate_outside(ref_dir, eval_dir));
  return job;
}

nlohmann::json build_job(const job_context& ctx, const fs::path& dir) {
  return {{"mode", "build"},
          {"device", ctx.device},
          {"runtime_lib", ctx.paths.runtime_lib.string()},
          {"solution_file", (dir / "work" / "kernel.py").string()},
          {"events_file", (dir / "events.jsonl").string()}};
}

nlohmann::json calibrate_job(const job_context& ctx, const timing_options& timing, const fs::path& work_dir) {
  return {{"mode", "calibrate"},
          {"device", ctx.device},
          {"runtime_lib", ctx.paths.runtime_lib.string()},
          {"events_file", (work_dir / "events.jsonl").string()},
          {"timing_dir", (work_dir / "timing").string()},
          {"timing", job_timing(timing, ctx.device)}};
}

std::map<std::string, std::string> cpu_environment() {
  return {
      // glibc fills every fresh host allocation with 0xFE: an output allocated and never written
      // reads as poison (S2) instead of whatever the allocator last held.
      {"MALLOC_PERTURB_", "1"},
      // One intra-op thread: a single call whose work is split across a thread pool waits for a
      // pool thread that another process holds the core of (a ReLU's lone call took a median of
      // 12 ms on 2 busy cores against 0.014 ms in a loop), which the work check would read as work.
      {"OMP_NUM_THREADS", "1"},
      // Freed heap stays in the process and blocks up to 32 MiB (glibc's largest threshold) come
      // from the heap, so the heap the candidate reserves before its calls stays resident
      // (tensors.reserve_heap): a call's output is not faulted in page by page inside the call.
      {"MALLOC_MMAP_THRESHOLD_", std::to_string(k_cpu_mmap_threshold)},
      {"MALLOC_TRIM_THRESHOLD_", std::to_string(k_cpu_trim_threshold)},
  };
}

std::map<std::string, std::string> runner_environment(const job_context& ctx, const fs::path& cache_dir, const fs::path& home) {
  const fs::path python_bin = fs::path(ctx.options.python).parent_path();
  std::map<std::string, std::string> env{
      {"PATH", python_bin.string() + ":/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin"},
      {"HOME", home.string()},
      {"PYTHONPATH", ctx.paths.python_dir.string()},
      {"PYTHONUNBUFFERED", "1"},
      {"PYTHONDONTWRITEBYTECODE", "1"},
      {"PYTHONNOUSERSITE", "1"},
      {"TORCH_EXTENSIONS_DIR", (cache_dir / "torch_extensions").string()},
      {"TRITON_CACHE_DIR", (cache_dir / "triton").string()},
      {"CUDA_CACHE_PATH", (cache_dir / "cuda").string()},
      {"XDG_CACHE_HOME", (cache_dir / "xdg").string()},
      {"MAX_JOBS", std::to_string(std::max(1u, std::thread::hardware_concurrency()))},
      {"LANG", "C.UTF-8"},
      // The sandbox uid has no passwd entry: getpass.getuser() (torch.compile's cache) reads these.
      {"USER", "arbiter-sandbox"},
      {"LOGNAME", "arbiter-sandbox"},
  };
  // The only variables that cross from arbiter's environment: device selection and toolchain.
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "CUDA_HOME", "LD_LIBRARY_PATH", "NVIDIA_VISIBLE_DEVICES",
                           "NVIDIA_DRIVER_CAPABILITIES", "TORCH_CUDA_ARCH_LIST", "CC", "CXX"})
    if (const char* value = std::getenv(name)) env[name] = value;
  if (!env.contains("CUDA_HOME") && fs::exists("/usr/local/cuda")) env["CUDA_HOME"] = "/usr/local/cuda";
  if (ctx.device == "cpu")
    for (auto& [name, value] : cpu_environment()) env[name] = std::move(value);
  return env;
}

void write_json(const fs::path& file, const nlohmann::json& value) {
  fs::create_directories(file.parent_path());
  std::ofstream out(file);
  out << value.dump(2) << '\n';
  if (!out) ARB_THROW(io_error, "cannot write " + file.string());
}

} // namespace arbiter::pipeline::detail
