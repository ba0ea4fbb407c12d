"""Deliberately wrong ReLU (a known-bad control): negatives leak through at 0.01x, a leaky ReLU
where a ReLU was asked for. Same float4 CUDA kernel and C++ loop as the handwritten solution otherwise."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_CUDA_SRC = r"""
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <cstdint>

// BUG (deliberate): negatives are scaled by 0.01 instead of zeroed.
__device__ __forceinline__ float relu1(float v) { return v < 0.f ? 0.01f * v : v; }

__global__ void relu_vec4_kernel(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    float4 v = x[i];
    v.x = relu1(v.x); v.y = relu1(v.y); v.z = relu1(v.z); v.w = relu1(v.w);
    y[i] = v;
  }
}

__global__ void relu_scalar_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t begin, int64_t n) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = begin + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = relu1(x[i]);
}

static int grid_for(int64_t work, int threads) {
  const int64_t wanted = (work + threads - 1) / threads;
  const int64_t cap = (int64_t)at::cuda::getCurrentDeviceProperties()->multiProcessorCount * 16;
  return (int)std::max<int64_t>(1, std::min(wanted, cap));
}

torch::Tensor relu_cuda(torch::Tensor x) {
  const c10::cuda::CUDAGuard guard(x.device());
  auto y = torch::empty_like(x);
  const int64_t n = x.numel();
  if (n == 0) return y;
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  const float* xp = x.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  const int threads = 256;
  int64_t done = 0;
  if (reinterpret_cast<uintptr_t>(xp) % 16 == 0 && reinterpret_cast<uintptr_t>(yp) % 16 == 0) {
    const int64_t n4 = n / 4;
    if (n4 > 0) {
      relu_vec4_kernel<<<grid_for(n4, threads), threads, 0, stream>>>(
          reinterpret_cast<const float4*>(xp), reinterpret_cast<float4*>(yp), n4);
      C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
    done = n4 * 4;
  }
  if (done < n) {
    relu_scalar_kernel<<<grid_for(n - done, threads), threads, 0, stream>>>(xp, yp, done, n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }
  return y;
}
"""

_CPP_SRC = r"""
#ifdef ARB_WITH_CUDA
torch::Tensor relu_cuda(torch::Tensor x);
#endif

static torch::Tensor relu_cpu(const torch::Tensor& x) {
  auto y = torch::empty_like(x);
  const float* xp = x.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  at::parallel_for(0, x.numel(), 1 << 16, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) yp[i] = xp[i] < 0.f ? 0.01f * xp[i] : xp[i];  // BUG (deliberate): leaky
  });
  return y;
}

torch::Tensor relu_forward(torch::Tensor x) {
  TORCH_CHECK(x.scalar_type() == torch::kFloat32, "relu_forward: expected float32, got ", x.scalar_type());
  TORCH_CHECK(x.is_contiguous(), "relu_forward: expected a contiguous tensor");
  if (x.is_cuda()) {
#ifdef ARB_WITH_CUDA
    return relu_cuda(x);
#else
    TORCH_CHECK(false, "relu_forward: this build has no CUDA kernel");
#endif
  }
  return relu_cpu(x);
}
"""


def _build():
    if torch.cuda.is_available():
        return load_inline(name="arbiter_starter_l1_relu_wrong_cuda", cpp_sources=_CPP_SRC, cuda_sources=_CUDA_SRC,
                           functions=["relu_forward"], extra_cflags=["-O3", "-DARB_WITH_CUDA"],
                           extra_cuda_cflags=["-O3"])
    return load_inline(name="arbiter_starter_l1_relu_wrong_cpu", cpp_sources=_CPP_SRC,
                       functions=["relu_forward"], extra_cflags=["-O3"])


_ext = _build()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.relu_forward(x.contiguous())
