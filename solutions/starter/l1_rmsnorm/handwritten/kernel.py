"""Handwritten RMSNorm: one CUDA block per row (warp-shuffle sum of squares, then a scaling pass
that applies the weight), or a C++ loop over rows on machines without CUDA."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_CUDA_SRC = r"""
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <cstdint>

__device__ float block_sum(float v) {
  __shared__ float partial[32];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + 31) >> 5;
  if (warp == 0) {
    v = lane < warps ? partial[lane] : 0.f;
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    if (lane == 0) partial[0] = v;
  }
  __syncthreads();
  const float total = partial[0];
  __syncthreads();  // partial[] may be reused by the caller's next reduction
  return total;
}

__global__ void rmsnorm_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                               int64_t hidden, float eps) {
  const float* xr = x + (int64_t)blockIdx.x * hidden;
  float* yr = y + (int64_t)blockIdx.x * hidden;
  float ss = 0.f;
  for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x) ss = fmaf(xr[c], xr[c], ss);
  const float inv_rms = 1.f / sqrtf(block_sum(ss) / (float)hidden + eps);
  for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x) yr[c] = xr[c] * inv_rms * w[c];
}

torch::Tensor rmsnorm_cuda(torch::Tensor x, torch::Tensor w, double eps) {
  const c10::cuda::CUDAGuard guard(x.device());
  auto y = torch::empty_like(x);
  const int64_t rows = x.size(0), hidden = x.size(1);
  if (rows == 0 || hidden == 0) return y;
  TORCH_CHECK(rows <= 2147483647, "rmsnorm_cuda: too many rows for one grid dimension");
  const int threads = hidden <= 1024 ? 128 : hidden <= 8192 ? 256 : 512;
  rmsnorm_kernel<<<(unsigned)rows, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<float>(), w.data_ptr<float>(), y.data_ptr<float>(), hidden, (float)eps);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}
"""

_CPP_SRC = r"""
#include <cmath>

#ifdef ARB_WITH_CUDA
torch::Tensor rmsnorm_cuda(torch::Tensor x, torch::Tensor w, double eps);
#endif

static torch::Tensor rmsnorm_cpu(const torch::Tensor& x, const torch::Tensor& w, double eps) {
  auto y = torch::empty_like(x);
  const int64_t rows = x.size(0), hidden = x.size(1);
  const float* xp = x.data_ptr<float>();
  const float* wp = w.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  at::parallel_for(0, rows, 16, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float* xr = xp + r * hidden;
      float* yr = yp + r * hidden;
      float ss = 0.f;
      for (int64_t c = 0; c < hidden; ++c) ss += xr[c] * xr[c];
      const float inv_rms = 1.f / std::sqrt(ss / (float)hidden + (float)eps);
      for (int64_t c = 0; c < hidden; ++c) yr[c] = xr[c] * inv_rms * wp[c];
    }
  });
  return y;
}

torch::Tensor rmsnorm_forward(torch::Tensor x, torch::Tensor w, double eps) {
  TORCH_CHECK(x.scalar_type() == torch::kFloat32 && w.scalar_type() == torch::kFloat32, "rmsnorm_forward: expected float32");
  TORCH_CHECK(x.dim() == 2 && w.dim() == 1 && w.size(0) == x.size(1), "rmsnorm_forward: expected x[rows, hidden], weight[hidden]");
  TORCH_CHECK(x.is_contiguous() && w.is_contiguous(), "rmsnorm_forward: expected contiguous inputs");
  TORCH_CHECK(x.device() == w.device(), "rmsnorm_forward: inputs on different devices");
  if (x.is_cuda()) {
#ifdef ARB_WITH_CUDA
    return rmsnorm_cuda(x, w, eps);
#else
    TORCH_CHECK(false, "rmsnorm_forward: this build has no CUDA kernel");
#endif
  }
  return rmsnorm_cpu(x, w, eps);
}
"""


def _build():
    if torch.cuda.is_available():
        return load_inline(name="arbiter_starter_l1_rmsnorm_cuda", cpp_sources=_CPP_SRC, cuda_sources=_CUDA_SRC,
                           functions=["rmsnorm_forward"], extra_cflags=["-O3", "-DARB_WITH_CUDA"],
                           extra_cuda_cflags=["-O3"])
    return load_inline(name="arbiter_starter_l1_rmsnorm_cpu", cpp_sources=_CPP_SRC,
                       functions=["rmsnorm_forward"], extra_cflags=["-O3"])


_ext = _build()


class ModelNew(nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.rmsnorm_forward(x.contiguous(), self.weight.contiguous(), self.eps)
