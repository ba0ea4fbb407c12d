"""Handwritten RMSNorm (bfloat16, Llama rounding): one block per row, fp32 sum of squares with a
warp-shuffle block reduction, then the scaling pass; a C++ loop per row on machines without CUDA."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# The per-element math, shared verbatim by the CUDA kernel and the CPU loop.
_COMMON = r"""// y = weight * bf16(x * inv_rms), rounded to bfloat16 as the reference does.
ARB_HD bf16 rms_out(float x, float inv_rms, bf16 w) { return bf16(float(w) * float(bf16(x * inv_rms))); }
"""

_CUDA_SRC = r"""#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_bf16.h>
#include <algorithm>
#include <cstdint>
#define ARB_HD __host__ __device__ __forceinline__
using bf16 = at::BFloat16;

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// Sum over the block; every thread gets the total. Safe to call repeatedly.
__device__ float block_sum(float v) {
  __shared__ float part[32];
  v = warp_sum(v);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
  __syncthreads();
  const int warps = (blockDim.x + 31) >> 5;
  v = (int)threadIdx.x < warps ? part[threadIdx.x] : 0.f;
  if (threadIdx.x < 32) v = warp_sum(v);
  if (threadIdx.x == 0) part[0] = v;
  __syncthreads();
  return part[0];
}

__device__ float block_max(float v) {
  __shared__ float part[32];
  v = warp_max(v);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
  __syncthreads();
  const int warps = (blockDim.x + 31) >> 5;
  v = (int)threadIdx.x < warps ? part[threadIdx.x] : -INFINITY;
  if (threadIdx.x < 32) v = warp_max(v);
  if (threadIdx.x == 0) part[0] = v;
  __syncthreads();
  return part[0];
}

static unsigned grid_for(int64_t n, int threads) {
  const int64_t blocks = (n + threads - 1) / threads;
  return (unsigned)(blocks < 65535 * 16 ? blocks : 65535 * 16);
}
""" + _COMMON + r"""
__global__ void rms_kernel(const bf16* __restrict__ x, const bf16* __restrict__ res, const bf16* __restrict__ w,
                           bf16* __restrict__ y, bf16* __restrict__ sum_out, int64_t hidden, float eps) {
  const int64_t row = blockIdx.x;
  const bf16* xr = x + row * hidden;
  const bf16* rr = res ? res + row * hidden : nullptr;
  bf16* yr = y + row * hidden;
  float ss = 0.f;
  for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x) {
    const float v = float(xr[c]);
    if (sum_out) sum_out[row * hidden + c] = bf16(v);
    ss += v * v;
  }
  const float inv = rsqrtf(block_sum(ss) / (float)hidden + eps);
  for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x) yr[c] = rms_out(float(xr[c]), inv, w[c]);
}

std::vector<torch::Tensor> rmsnorm_forward_cuda(torch::Tensor x, torch::Tensor res, torch::Tensor w) {
  const c10::cuda::CUDAGuard guard(x.device());
  const int64_t rows = x.size(0), hidden = x.size(1);
  auto y = torch::empty_like(x);
  auto summed = false ? torch::empty_like(x) : torch::Tensor();
  if (rows > 0) {
    const int threads = hidden >= 4096 ? 512 : hidden >= 1024 ? 256 : 128;
    rms_kernel<<<(unsigned)rows, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<bf16>(), false ? res.data_ptr<bf16>() : nullptr, w.data_ptr<bf16>(), y.data_ptr<bf16>(),
        false ? summed.data_ptr<bf16>() : nullptr, hidden, 1e-6f);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }
  if (false) return {y, summed};
  return {y};
}
"""

_CPP_SRC = r"""#include <algorithm>
#include <cmath>
#include <cstdint>
#define ARB_HD inline
using bf16 = at::BFloat16;
""" + _COMMON + r"""
std::vector<torch::Tensor> rmsnorm_forward_cpu(torch::Tensor x, torch::Tensor res, torch::Tensor w) {
  const int64_t rows = x.size(0), hidden = x.size(1);
  auto y = torch::empty_like(x);
  auto summed = false ? torch::empty_like(x) : torch::Tensor();
  const bf16* xp = x.data_ptr<bf16>();
  const bf16* rp = false ? res.data_ptr<bf16>() : nullptr;
  const bf16* wp = w.data_ptr<bf16>();
  bf16* yp = y.data_ptr<bf16>();
  bf16* sp = false ? summed.data_ptr<bf16>() : nullptr;
  at::parallel_for(0, rows, 16, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const bf16* xr = xp + r * hidden;
      const bf16* rr = rp ? rp + r * hidden : nullptr;
      double ss = 0.0;
      for (int64_t c = 0; c < hidden; ++c) {
        const float v = float(xr[c]);
        if (sp) sp[r * hidden + c] = bf16(v);
        ss += (double)v * v;
      }
      const float inv = 1.f / std::sqrt((float)(ss / hidden) + 1e-6f);
      for (int64_t c = 0; c < hidden; ++c) yp[r * hidden + c] = rms_out(float(xr[c]), inv, wp[c]);
    }
  });
  if (false) return {y, summed};
  return {y};
}

#ifdef ARB_WITH_CUDA
std::vector<torch::Tensor> rmsnorm_forward_cuda(torch::Tensor x, torch::Tensor res, torch::Tensor w);
#endif

std::vector<torch::Tensor> rmsnorm_forward(torch::Tensor x, torch::Tensor res, torch::Tensor w) {
  TORCH_CHECK(x.scalar_type() == torch::kBFloat16 && x.dim() == 2 && x.is_contiguous() && w.scalar_type() == torch::kBFloat16, "rmsnorm_forward: contiguous bfloat16 [rows, hidden] expected");
  if (x.is_cuda()) {
#ifdef ARB_WITH_CUDA
    return rmsnorm_forward_cuda(x, res, w);
#else
    TORCH_CHECK(false, "rmsnorm_forward: this build has no CUDA kernel");
#endif
  }
  return rmsnorm_forward_cpu(x, res, w);
}
"""


def _build():
    if torch.cuda.is_available():
        return load_inline(name="arbiter_core_l1_rmsnorm_bf16_cuda", cpp_sources=_CPP_SRC, cuda_sources=_CUDA_SRC,
                           functions=["rmsnorm_forward"], extra_cflags=["-O3", "-DARB_WITH_CUDA"],
                           extra_cuda_cflags=["-O3"])
    return load_inline(name="arbiter_core_l1_rmsnorm_bf16_cpu", cpp_sources=_CPP_SRC, functions=["rmsnorm_forward"],
                       extra_cflags=["-O3"])


_ext = _build()


class ModelNew(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden, dtype=torch.bfloat16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.rmsnorm_forward(x.contiguous(), x, self.weight.contiguous())[0]
