#pragma once
/// The doctor: what this machine offers to a benchmark run — the Python interpreter and its torch,
/// the GPU as the CUDA driver reports it, nvcc and CUPTI — and the hardware record that campaigns
/// are stored against.
#include "arbiter/sandbox/host.hpp"
#include "arbiter/store/records.hpp"

#include <cstdint>
#include <iosfwd>
#include <string>

namespace arbiter::doctor {

struct python_info {
  std::string path, version, torch_version, torch_cuda_version, triton_version;
  bool torch_cuda_available = false;
  std::string error; ///< why the interpreter could not be probed or lacks torch; empty when fine
};

struct gpu_info {
  bool present = false;
  std::string name;
  int sm_count = 0;
  std::int64_t l2_bytes = 0, memory_bytes = 0;
  int cc_major = 0, cc_minor = 0;
  std::string driver_version; ///< "13.0"
  int device_count = 0;       ///< devices the driver sees; the fields above describe device 0
  std::string error;          ///< why present is false
};

struct environment {
  python_info python;
  gpu_info gpu;
  std::string nvcc_version; ///< "Cuda compilation tools, release 12.4, V12.4.131"; empty if none
  std::string cupti_path;   ///< empty if none
  std::string host, os;
  sandbox::host_isolation sandbox; ///< the candidate's sandbox on this machine: engine, seccomp, cgroup
};

/// ARBITER_PYTHON if set (it must import torch, else config_error naming it), else the first of
/// `python3` on PATH and /usr/bin/python3 that imports torch. Throws config_error listing every
/// interpreter tried and why it was refused.
std::string find_python();

/// Runs a small script in `python` and parses the JSON it prints. Never throws: an interpreter
/// that cannot run or lacks torch comes back with `error` set.
python_info probe_python(const std::string& python);

/// Asks the CUDA driver about device 0 through dlopen("libcuda.so.1"); arbiter does not link
/// CUDA. Never throws: no driver, no device or a failing call gives present=false and `error`.
gpu_info probe_gpu();

/// probe_python, probe_gpu, nvcc, CUPTI, host name and OS. Never throws.
environment probe_environment(const std::string& python);

/// The record a campaign on `device` ("cpu" or "cuda") is stored against. The fingerprint is a
/// SHA-256 over device, GPU name, SM count, L2, memory, driver, torch and Python versions; GPU
/// fields are blank for "cpu". Throws config_error for another device, or for "cuda" without a GPU.
store::hardware_record hardware_for(const environment& env, const std::string& device);

/// Human lines ("gpu: NVIDIA H200 (132 SMs, 60 MiB L2, 141 GiB), driver 13.0, cc 9.0", or
/// "gpu: none (reason)"), or with `json` one JSON object on one line.
void render(std::ostream& out, const environment& env, bool json);

} // namespace arbiter::doctor
