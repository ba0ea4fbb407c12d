"""Deliberately wrong row softmax (a known-bad control). Two plausible bugs: the kernel indexes the
input as if it were column-major (element (r, c) read at c * rows + r, so it normalises the wrong
axis of the wrong view), and it skips the max subtraction (exp overflows once inputs are large).
One CUDA block per row otherwise, and the same C++ loop shape on machines without CUDA."""
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
  return partial[0];
}

// BUG (deliberate): element (r, c) addressed as c * rows + r; no max subtraction.
__global__ void softmax_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
  const int64_t r = blockIdx.x;
  float s = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += expf(x[c * rows + r]);
  const float inv = 1.f / block_sum(s);
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) y[c * rows + r] = expf(x[c * rows + r]) * inv;
}

torch::Tensor softmax_cuda(torch::Tensor x) {
  const c10::cuda::CUDAGuard guard(x.device());
  auto y = torch::empty_like(x);
  const int64_t rows = x.size(0), cols = x.size(1);
  if (rows == 0 || cols == 0) return y;
  softmax_rows_kernel<<<(unsigned)rows, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}
"""

_CPP_SRC = r"""
#include <cmath>

#ifdef ARB_WITH_CUDA
torch::Tensor softmax_cuda(torch::Tensor x);
#endif

static torch::Tensor softmax_cpu(const torch::Tensor& x) {
  auto y = torch::empty_like(x);
  const int64_t rows = x.size(0), cols = x.size(1);
  const float* xp = x.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  at::parallel_for(0, rows, 16, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      float s = 0.f;  // BUG (deliberate): column-major addressing, no max subtraction
      for (int64_t c = 0; c < cols; ++c) s += std::exp(xp[c * rows + r]);
      const float inv = 1.f / s;
      for (int64_t c = 0; c < cols; ++c) yp[c * rows + r] = std::exp(xp[c * rows + r]) * inv;
    }
  });
  return y;
}

torch::Tensor softmax_forward(torch::Tensor x) {
  TORCH_CHECK(x.scalar_type() == torch::kFloat32, "softmax_forward: expected float32, got ", x.scalar_type());
  TORCH_CHECK(x.dim() == 2 && x.is_contiguous(), "softmax_forward: expected a contiguous 2-D tensor");
  if (x.is_cuda()) {
#ifdef ARB_WITH_CUDA
    return softmax_cuda(x);
#else
    TORCH_CHECK(false, "softmax_forward: this build has no CUDA kernel");
#endif
  }
  return softmax_cpu(x);
}
"""


def _build():
    if torch.cuda.is_available():
        return load_inline(name="arbiter_starter_l1_softmax_wrong_cuda", cpp_sources=_CPP_SRC, cuda_sources=_CUDA_SRC,
                           functions=["softmax_forward"], extra_cflags=["-O3", "-DARB_WITH_CUDA"],
                           extra_cuda_cflags=["-O3"])
    return load_inline(name="arbiter_starter_l1_softmax_wrong_cpu", cpp_sources=_CPP_SRC,
                       functions=["softmax_forward"], extra_cflags=["-O3"])


_ext = _build()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.softmax_forward(x.contiguous())
