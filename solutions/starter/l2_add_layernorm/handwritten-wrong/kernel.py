"""Deliberately wrong fused residual add + LayerNorm (a known-bad control): the mean is taken of
x + residual, but the variance pass reads x alone, so rows are scaled by the wrong standard
deviation. Same per-row CUDA block and C++ loop as the handwritten solution otherwise."""
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
  __syncthreads();  // partial[] is reused by the next reduction
  return total;
}

__global__ void add_layernorm_kernel(const float* __restrict__ x, const float* __restrict__ res,
                                     const float* __restrict__ w, const float* __restrict__ b,
                                     float* __restrict__ y, int64_t hidden, float eps) {
  const int64_t offset = (int64_t)blockIdx.x * hidden;
  const float* xr = x + offset;
  const float* rr = res + offset;
  float* yr = y + offset;
  float s = 0.f;
  for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x) s += xr[c] + rr[c];
  const float mean = block_sum(s) / (float)hidden;
  float sq = 0.f;
  for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x) {
    const float d = xr[c] - mean;  // BUG (deliberate): variance of x, not of x + residual
    sq = fmaf(d, d, sq);
  }
  const float rstd = 1.f / sqrtf(block_sum(sq) / (float)hidden + eps);
  for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x)
    yr[c] = (xr[c] + rr[c] - mean) * rstd * w[c] + b[c];
}

torch::Tensor add_layernorm_cuda(torch::Tensor x, torch::Tensor res, torch::Tensor w, torch::Tensor b, double eps) {
  const c10::cuda::CUDAGuard guard(x.device());
  auto y = torch::empty_like(x);
  const int64_t rows = x.size(0), hidden = x.size(1);
  if (rows == 0 || hidden == 0) return y;
  TORCH_CHECK(rows <= 2147483647, "add_layernorm_cuda: too many rows for one grid dimension");
  const int threads = hidden <= 1024 ? 128 : hidden <= 8192 ? 256 : 512;
  add_layernorm_kernel<<<(unsigned)rows, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<float>(), res.data_ptr<float>(), w.data_ptr<float>(), b.data_ptr<float>(), y.data_ptr<float>(),
      hidden, (float)eps);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}
"""

_CPP_SRC = r"""
#include <cmath>

#ifdef ARB_WITH_CUDA
torch::Tensor add_layernorm_cuda(torch::Tensor x, torch::Tensor res, torch::Tensor w, torch::Tensor b, double eps);
#endif

static torch::Tensor add_layernorm_cpu(const torch::Tensor& x, const torch::Tensor& res, const torch::Tensor& w,
                                       const torch::Tensor& b, double eps) {
  auto y = torch::empty_like(x);
  const int64_t rows = x.size(0), hidden = x.size(1);
  const float* xp = x.data_ptr<float>();
  const float* rp = res.data_ptr<float>();
  const float* wp = w.data_ptr<float>();
  const float* bp = b.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  at::parallel_for(0, rows, 16, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float* xr = xp + r * hidden;
      const float* rr = rp + r * hidden;
      float* yr = yp + r * hidden;
      float s = 0.f;
      for (int64_t c = 0; c < hidden; ++c) { yr[c] = xr[c] + rr[c]; s += yr[c]; }
      const float mean = s / (float)hidden;
      float sq = 0.f;
      for (int64_t c = 0; c < hidden; ++c) { const float d = xr[c] - mean; sq += d * d; }  // BUG (deliberate): x only
      const float rstd = 1.f / std::sqrt(sq / (float)hidden + (float)eps);
      for (int64_t c = 0; c < hidden; ++c) yr[c] = (yr[c] - mean) * rstd * wp[c] + bp[c];
    }
  });
  return y;
}

torch::Tensor add_layernorm_forward(torch::Tensor x, torch::Tensor res, torch::Tensor w, torch::Tensor b, double eps) {
  for (const auto* t : {&x, &res, &w, &b}) {
    TORCH_CHECK(t->scalar_type() == torch::kFloat32, "add_layernorm_forward: expected float32");
    TORCH_CHECK(t->is_contiguous(), "add_layernorm_forward: expected contiguous inputs");
    TORCH_CHECK(t->device() == x.device(), "add_layernorm_forward: inputs on different devices");
  }
  TORCH_CHECK(x.dim() == 2 && res.sizes() == x.sizes(), "add_layernorm_forward: expected x and residual [rows, hidden]");
  TORCH_CHECK(w.dim() == 1 && b.dim() == 1 && w.size(0) == x.size(1) && b.size(0) == x.size(1),
              "add_layernorm_forward: expected weight[hidden] and bias[hidden]");
  if (x.is_cuda()) {
#ifdef ARB_WITH_CUDA
    return add_layernorm_cuda(x, res, w, b, eps);
#else
    TORCH_CHECK(false, "add_layernorm_forward: this build has no CUDA kernel");
#endif
  }
  return add_layernorm_cpu(x, res, w, b, eps);
}
"""


def _build():
    if torch.cuda.is_available():
        return load_inline(name="arbiter_starter_l2_add_layernorm_wrong_cuda", cpp_sources=_CPP_SRC, cuda_sources=_CUDA_SRC,
                           functions=["add_layernorm_forward"], extra_cflags=["-O3", "-DARB_WITH_CUDA"],
                           extra_cuda_cflags=["-O3"])
    return load_inline(name="arbiter_starter_l2_add_layernorm_wrong_cpu", cpp_sources=_CPP_SRC,
                       functions=["add_layernorm_forward"], extra_cflags=["-O3"])


_ext = _build()


class ModelNew(nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        self.hidden = hidden
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(hidden))
        self.bias = nn.Parameter(0.1 * torch.randn(hidden))

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return _ext.add_layernorm_forward(x.contiguous(), residual.contiguous(), self.weight.contiguous(),
                                          self.bias.contiguous(), self.eps)
