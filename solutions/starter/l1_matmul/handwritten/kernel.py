"""Handwritten FP32 GEMM: a shared-memory tiled CUDA kernel (128x128 block tile, BK = 8, an 8x8
register tile per thread, fp32 FMA, zero-filled edges for any size), or a K-blocked C++ loop on
machines without CUDA."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_CUDA_SRC = r"""
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <cstdint>

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8, THREADS = 256;

// C[M, N] = A[M, K] @ B[K, N], row-major. Tiles are staged in shared memory (A transposed, both
// padded by 4 floats against bank conflicts); each thread accumulates an 8x8 block in registers.
__global__ void __launch_bounds__(THREADS) sgemm_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                                        float* __restrict__ C, int M, int N, int K) {
  __shared__ float As[BK][BM + 4];
  __shared__ float Bs[BK][BN + 4];
  const int tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;
  const int block_m = blockIdx.y * BM, block_n = blockIdx.x * BN;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;
  float a_frag[TM], b_frag[TN];

  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int i = 0; i < (BM * BK) / THREADS; ++i) {
      const int idx = tid + i * THREADS;
      const int m = idx / BK, k = idx % BK;
      const int gm = block_m + m, gk = k0 + k;
      As[k][m] = (gm < M && gk < K) ? A[(int64_t)gm * K + gk] : 0.f;
    }
#pragma unroll
    for (int i = 0; i < (BN * BK) / THREADS; ++i) {
      const int idx = tid + i * THREADS;
      const int k = idx / BN, n = idx % BN;
      const int gk = k0 + k, gn = block_n + n;
      Bs[k][n] = (gk < K && gn < N) ? B[(int64_t)gk * N + gn] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; ++i) a_frag[i] = As[k][ty * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b_frag[j] = Bs[k][tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int gm = block_m + ty * TM + i;
    if (gm >= M) continue;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int gn = block_n + tx * TN + j;
      if (gn < N) C[(int64_t)gm * N + gn] = acc[i][j];
    }
  }
}

torch::Tensor matmul_cuda(torch::Tensor a, torch::Tensor b) {
  const c10::cuda::CUDAGuard guard(a.device());
  const int64_t M = a.size(0), K = a.size(1), N = b.size(1);
  TORCH_CHECK(M < (1ll << 31) && N < (1ll << 31) && K < (1ll << 31), "matmul_cuda: dimension too large");
  auto c = torch::empty({M, N}, a.options());
  if (M == 0 || N == 0) return c;
  const dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM));
  TORCH_CHECK(grid.y <= 65535, "matmul_cuda: M too large for one grid");
  sgemm_kernel<<<grid, THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
      a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), (int)M, (int)N, (int)K);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return c;
}
"""

_CPP_SRC = r"""
#include <algorithm>

#ifdef ARB_WITH_CUDA
torch::Tensor matmul_cuda(torch::Tensor a, torch::Tensor b);
#endif

// i-k-j order: the inner loop runs along contiguous rows of B and C and vectorises; K is blocked
// so that a block of B rows stays in cache across the rows of A.
static torch::Tensor matmul_cpu(const torch::Tensor& a, const torch::Tensor& b) {
  const int64_t M = a.size(0), K = a.size(1), N = b.size(1);
  auto c = torch::zeros({M, N}, a.options());
  const float* ap = a.data_ptr<float>();
  const float* bp = b.data_ptr<float>();
  float* cp = c.data_ptr<float>();
  constexpr int64_t KB = 64;
  at::parallel_for(0, M, 8, [&](int64_t begin, int64_t end) {
    for (int64_t k0 = 0; k0 < K; k0 += KB) {
      const int64_t k1 = std::min(K, k0 + KB);
      for (int64_t i = begin; i < end; ++i) {
        float* ci = cp + i * N;
        for (int64_t k = k0; k < k1; ++k) {
          const float aik = ap[i * K + k];
          const float* bk = bp + k * N;
          for (int64_t j = 0; j < N; ++j) ci[j] += aik * bk[j];
        }
      }
    }
  });
  return c;
}

torch::Tensor matmul_forward(torch::Tensor a, torch::Tensor b) {
  TORCH_CHECK(a.scalar_type() == torch::kFloat32 && b.scalar_type() == torch::kFloat32, "matmul_forward: expected float32");
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2 && a.size(1) == b.size(0), "matmul_forward: expected A[M, K] and B[K, N]");
  TORCH_CHECK(a.is_contiguous() && b.is_contiguous(), "matmul_forward: expected contiguous inputs");
  TORCH_CHECK(a.device() == b.device(), "matmul_forward: inputs on different devices");
  if (a.is_cuda()) {
#ifdef ARB_WITH_CUDA
    return matmul_cuda(a, b);
#else
    TORCH_CHECK(false, "matmul_forward: this build has no CUDA kernel");
#endif
  }
  return matmul_cpu(a, b);
}
"""


def _build():
    if torch.cuda.is_available():
        return load_inline(name="arbiter_starter_l1_matmul_cuda", cpp_sources=_CPP_SRC, cuda_sources=_CUDA_SRC,
                           functions=["matmul_forward"], extra_cflags=["-O3", "-DARB_WITH_CUDA"],
                           extra_cuda_cflags=["-O3"])
    return load_inline(name="arbiter_starter_l1_matmul_cpu", cpp_sources=_CPP_SRC,
                       functions=["matmul_forward"], extra_cflags=["-O3"])


_ext = _build()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return _ext.matmul_forward(a.contiguous(), b.contiguous())
