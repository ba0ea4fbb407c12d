"""Handwritten fused Linear + bias + ReLU: one tiled CUDA GEMM (128x128 block tile, BK = 8, 8x8
register tile per thread, fp32 FMA) reading the weight in nn.Linear's [out, in] layout, with the
bias add and ReLU applied in registers before the single store; a C++ loop of dot products on
machines without CUDA. The nn.Linear submodule only holds the parameters (so the reference's
state_dict loads strictly); it is never called."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_CUDA_SRC = r"""
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <cstdint>

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8, THREADS = 256;

// Y[M, N] = relu(X[M, K] @ W[N, K]^T + bias[N]). Both operand tiles are staged k-major in shared
// memory (padded by 4 floats against bank conflicts); each thread owns an 8x8 output block.
__global__ void __launch_bounds__(THREADS) linear_bias_relu_kernel(
    const float* __restrict__ X, const float* __restrict__ W, const float* __restrict__ bias,
    float* __restrict__ Y, int M, int N, int K) {
  __shared__ float Xs[BK][BM + 4];
  __shared__ float Ws[BK][BN + 4];
  const int tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;
  const int block_m = blockIdx.y * BM, block_n = blockIdx.x * BN;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;
  float x_frag[TM], w_frag[TN];

  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int i = 0; i < (BM * BK) / THREADS; ++i) {
      const int idx = tid + i * THREADS;
      const int m = idx / BK, k = idx % BK;
      const int gm = block_m + m, gk = k0 + k;
      Xs[k][m] = (gm < M && gk < K) ? X[(int64_t)gm * K + gk] : 0.f;
    }
#pragma unroll
    for (int i = 0; i < (BN * BK) / THREADS; ++i) {
      const int idx = tid + i * THREADS;
      const int n = idx / BK, k = idx % BK;
      const int gn = block_n + n, gk = k0 + k;
      Ws[k][n] = (gn < N && gk < K) ? W[(int64_t)gn * K + gk] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; ++i) x_frag[i] = Xs[k][ty * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) w_frag[j] = Ws[k][tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(x_frag[i], w_frag[j], acc[i][j]);
    }
    __syncthreads();
  }

  float b_frag[TN];
#pragma unroll
  for (int j = 0; j < TN; ++j) {
    const int gn = block_n + tx * TN + j;
    b_frag[j] = gn < N ? bias[gn] : 0.f;
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int gm = block_m + ty * TM + i;
    if (gm >= M) continue;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int gn = block_n + tx * TN + j;
      const float v = acc[i][j] + b_frag[j];
      if (gn < N) Y[(int64_t)gm * N + gn] = v < 0.f ? 0.f : v;
    }
  }
}

torch::Tensor linear_bias_relu_cuda(torch::Tensor x, torch::Tensor w, torch::Tensor b) {
  const c10::cuda::CUDAGuard guard(x.device());
  const int64_t M = x.size(0), K = x.size(1), N = w.size(0);
  TORCH_CHECK(M < (1ll << 31) && N < (1ll << 31) && K < (1ll << 31), "linear_bias_relu_cuda: dimension too large");
  auto y = torch::empty({M, N}, x.options());
  if (M == 0 || N == 0) return y;
  const dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM));
  TORCH_CHECK(grid.y <= 65535, "linear_bias_relu_cuda: batch too large for one grid");
  linear_bias_relu_kernel<<<grid, THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<float>(), w.data_ptr<float>(), b.data_ptr<float>(), y.data_ptr<float>(), (int)M, (int)N, (int)K);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}
"""

_CPP_SRC = r"""
#ifdef ARB_WITH_CUDA
torch::Tensor linear_bias_relu_cuda(torch::Tensor x, torch::Tensor w, torch::Tensor b);
#endif

// x and each weight row are contiguous along K: a dot product with 8 independent partial sums.
static float dot(const float* a, const float* b, int64_t K) {
  float part[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
  int64_t k = 0;
  for (; k + 8 <= K; k += 8)
    for (int u = 0; u < 8; ++u) part[u] += a[k + u] * b[k + u];
  float s = ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
  for (; k < K; ++k) s += a[k] * b[k];
  return s;
}

static torch::Tensor linear_bias_relu_cpu(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
  const int64_t M = x.size(0), K = x.size(1), N = w.size(0);
  auto y = torch::empty({M, N}, x.options());
  const float* xp = x.data_ptr<float>();
  const float* wp = w.data_ptr<float>();
  const float* bp = b.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  at::parallel_for(0, M, 8, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      for (int64_t j = 0; j < N; ++j) {
        const float v = dot(xp + i * K, wp + j * K, K) + bp[j];
        yp[i * N + j] = v < 0.f ? 0.f : v;
      }
  });
  return y;
}

torch::Tensor linear_bias_relu_forward(torch::Tensor x, torch::Tensor w, torch::Tensor b) {
  TORCH_CHECK(x.scalar_type() == torch::kFloat32 && w.scalar_type() == torch::kFloat32 && b.scalar_type() == torch::kFloat32,
              "linear_bias_relu_forward: expected float32");
  TORCH_CHECK(x.dim() == 2 && w.dim() == 2 && b.dim() == 1 && x.size(1) == w.size(1) && b.size(0) == w.size(0),
              "linear_bias_relu_forward: expected x[M, K], weight[N, K], bias[N]");
  TORCH_CHECK(x.is_contiguous() && w.is_contiguous() && b.is_contiguous(), "linear_bias_relu_forward: expected contiguous inputs");
  TORCH_CHECK(x.device() == w.device() && x.device() == b.device(), "linear_bias_relu_forward: inputs on different devices");
  if (x.is_cuda()) {
#ifdef ARB_WITH_CUDA
    return linear_bias_relu_cuda(x, w, b);
#else
    TORCH_CHECK(false, "linear_bias_relu_forward: this build has no CUDA kernel");
#endif
  }
  return linear_bias_relu_cpu(x, w, b);
}
"""


def _build():
    if torch.cuda.is_available():
        return load_inline(name="arbiter_starter_l2_gemm_bias_relu_cuda", cpp_sources=_CPP_SRC, cuda_sources=_CUDA_SRC,
                           functions=["linear_bias_relu_forward"], extra_cflags=["-O3", "-DARB_WITH_CUDA"],
                           extra_cuda_cflags=["-O3"])
    return load_inline(name="arbiter_starter_l2_gemm_bias_relu_cpu", cpp_sources=_CPP_SRC,
                       functions=["linear_bias_relu_forward"], extra_cflags=["-O3"])


_ext = _build()


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)  # parameter holder only

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.linear_bias_relu_forward(x.contiguous(), self.linear.weight.contiguous(),
                                             self.linear.bias.contiguous())
