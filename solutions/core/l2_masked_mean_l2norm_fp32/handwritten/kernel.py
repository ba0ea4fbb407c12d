"""Handwritten masked mean pooling + L2 normalisation: one block per (sequence, chunk of 128
tokens) sums only the chunk's unpadded tokens, column by column (float4 loads where aligned, four
or eight tokens in flight per thread, float32 accumulation), into a small partial buffer; one
block per sequence then adds its chunks in double, divides by the length and normalises. Padded
tokens are never read and no masked copy of the hidden states is written. A C++ loop per
sequence on machines without CUDA."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# The per-element math, shared verbatim by the CUDA kernel and the CPU loop.
_COMMON = r"""// Tokens [0, valid) of a sequence are kept; the mean still divides by the length itself.
ARB_HD int64_t valid_tokens(int64_t length, int64_t seq) { return length < 0 ? 0 : (length < seq ? length : seq); }

ARB_HD float pooled_value(double sum, int64_t length) { return (float)(sum / (double)length); }

// F.normalize's denominator: max(||pooled||, 1e-12).
ARB_HD float l2_denominator(float sum_sq) {
  const float norm = sqrtf(sum_sq);
  return norm > 1e-12f ? norm : 1e-12f;
}
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
// PACK consecutive floats, one float4 access when PACK is 4 (the caller guarantees the alignment).
template <int PACK> __device__ __forceinline__ void load_pack(const float* src, float* dst);
template <> __device__ __forceinline__ void load_pack<1>(const float* src, float* dst) { dst[0] = src[0]; }
template <> __device__ __forceinline__ void load_pack<4>(const float* src, float* dst) {
  const float4 f = *reinterpret_cast<const float4*>(src);
  dst[0] = f.x; dst[1] = f.y; dst[2] = f.z; dst[3] = f.w;
}

// Block b * chunks + chunk sums the unpadded tokens among [chunk * rows_per_chunk, +rows_per_chunk)
// of sequence b, column by column, into part[b][chunk][:]; UNROLL tokens in flight per thread.
// Chunks past the length do nothing.
template <int PACK>
__global__ void pool_partial_kernel(const float* __restrict__ hidden, const int64_t* __restrict__ lengths,
                                    float* __restrict__ part, int64_t seq, int64_t dim, int64_t chunks, int rows_per_chunk) {
  constexpr int UNROLL = PACK == 4 ? 4 : 8;
  const int64_t b = blockIdx.x / chunks, chunk = blockIdx.x % chunks;
  const int64_t valid = valid_tokens(lengths[b], seq);
  const int64_t r0 = chunk * rows_per_chunk;
  if (r0 >= valid) return;
  const int64_t r1 = r0 + rows_per_chunk < valid ? r0 + rows_per_chunk : valid;
  float* out = part + blockIdx.x * dim;
  for (int64_t col = threadIdx.x * (int64_t)PACK; col < dim; col += (int64_t)blockDim.x * PACK) {
    const float* p = hidden + b * seq * dim + col;
    float acc[PACK] = {}, x[UNROLL][PACK];
    int64_t r = r0;
    for (; r + UNROLL <= r1; r += UNROLL) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) load_pack<PACK>(p + (r + u) * dim, x[u]);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
#pragma unroll
        for (int q = 0; q < PACK; ++q) acc[q] += x[u][q];
    }
    for (; r < r1; ++r) {
      load_pack<PACK>(p + r * dim, x[0]);
#pragma unroll
      for (int q = 0; q < PACK; ++q) acc[q] += x[0][q];
    }
#pragma unroll
    for (int q = 0; q < PACK; ++q) out[col + q] = acc[q];
  }
}

// One block per sequence: the chunks' partials added in double, the mean, then the L2 scaling of
// the values it wrote itself.
__global__ void pool_finish_kernel(const float* __restrict__ part, const int64_t* __restrict__ lengths, float* __restrict__ out,
                                   int64_t seq, int64_t dim, int64_t chunks, int rows_per_chunk) {
  const int64_t b = blockIdx.x;
  const int64_t length = lengths[b];
  const int64_t used = (valid_tokens(length, seq) + rows_per_chunk - 1) / rows_per_chunk;
  const float* pb = part + b * chunks * dim;
  float* ob = out + b * dim;
  float ss = 0.f;
  for (int64_t col = threadIdx.x; col < dim; col += blockDim.x) {
    double sum = 0.0;
    for (int64_t c = 0; c < used; ++c) sum += pb[c * dim + col];
    const float v = pooled_value(sum, length);
    ob[col] = v;
    ss += v * v;
  }
  const float denom = l2_denominator(block_sum(ss));
  for (int64_t col = threadIdx.x; col < dim; col += blockDim.x) ob[col] = ob[col] / denom;
}

torch::Tensor masked_mean_l2norm_forward_cuda(torch::Tensor hidden, torch::Tensor lengths) {
  const c10::cuda::CUDAGuard guard(hidden.device());
  const int64_t batch = hidden.size(0), seq = hidden.size(1), dim = hidden.size(2);
  auto out = torch::empty({batch, dim}, hidden.options());
  if (batch == 0 || dim == 0) return out;
  constexpr int rows_per_chunk = 128;
  const int64_t chunks = std::max<int64_t>(1, (seq + rows_per_chunk - 1) / rows_per_chunk);
  auto part = torch::empty({batch, chunks, dim}, hidden.options());
  const float* h = hidden.data_ptr<float>();
  const bool vec = dim % 4 == 0 && reinterpret_cast<uintptr_t>(h) % 16 == 0;
  const int64_t groups = vec ? dim / 4 : dim;
  const int threads = (int)std::min<int64_t>(256, std::max<int64_t>(32, (groups + 31) / 32 * 32));
  const unsigned grid = (unsigned)(batch * chunks);
  auto stream = at::cuda::getCurrentCUDAStream();
  if (vec)
    pool_partial_kernel<4><<<grid, threads, 0, stream>>>(h, lengths.data_ptr<int64_t>(), part.data_ptr<float>(), seq, dim, chunks, rows_per_chunk);
  else
    pool_partial_kernel<1><<<grid, threads, 0, stream>>>(h, lengths.data_ptr<int64_t>(), part.data_ptr<float>(), seq, dim, chunks, rows_per_chunk);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  const int finish_threads = (int)std::min<int64_t>(1024, std::max<int64_t>(32, (dim + 31) / 32 * 32));
  pool_finish_kernel<<<(unsigned)batch, finish_threads, 0, stream>>>(part.data_ptr<float>(), lengths.data_ptr<int64_t>(),
                                                                     out.data_ptr<float>(), seq, dim, chunks, rows_per_chunk);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}
"""

_CPP_SRC = r"""#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>
#define ARB_HD inline
using bf16 = at::BFloat16;
""" + _COMMON + r"""
torch::Tensor masked_mean_l2norm_forward_cpu(torch::Tensor hidden, torch::Tensor lengths) {
  const int64_t batch = hidden.size(0), seq = hidden.size(1), dim = hidden.size(2);
  auto out = torch::empty({batch, dim}, hidden.options());
  const float* hp = hidden.data_ptr<float>();
  const int64_t* lp = lengths.data_ptr<int64_t>();
  float* op = out.data_ptr<float>();
  at::parallel_for(0, batch, 1, [&](int64_t begin, int64_t end) {
    std::vector<double> sum(dim);
    for (int64_t b = begin; b < end; ++b) {
      std::fill(sum.begin(), sum.end(), 0.0);
      const int64_t valid = valid_tokens(lp[b], seq);
      for (int64_t r = 0; r < valid; ++r)
        for (int64_t c = 0; c < dim; ++c) sum[c] += hp[(b * seq + r) * dim + c];
      float ss = 0.f;
      for (int64_t c = 0; c < dim; ++c) {
        op[b * dim + c] = pooled_value(sum[c], lp[b]);
        ss += op[b * dim + c] * op[b * dim + c];
      }
      const float denom = l2_denominator(ss);
      for (int64_t c = 0; c < dim; ++c) op[b * dim + c] = op[b * dim + c] / denom;
    }
  });
  return out;
}

#ifdef ARB_WITH_CUDA
torch::Tensor masked_mean_l2norm_forward_cuda(torch::Tensor hidden, torch::Tensor lengths);
#endif

torch::Tensor masked_mean_l2norm_forward(torch::Tensor hidden, torch::Tensor lengths) {
  TORCH_CHECK(hidden.scalar_type() == torch::kFloat32 && hidden.dim() == 3 && hidden.is_contiguous(), "masked_mean_l2norm_forward: contiguous float32 hidden [b, s, d] expected");
  TORCH_CHECK(lengths.scalar_type() == torch::kInt64 && lengths.numel() == hidden.size(0) && lengths.is_contiguous(), "masked_mean_l2norm_forward: int64 lengths [b] expected");
  if (hidden.is_cuda()) {
#ifdef ARB_WITH_CUDA
    return masked_mean_l2norm_forward_cuda(hidden, lengths);
#else
    TORCH_CHECK(false, "masked_mean_l2norm_forward: this build has no CUDA kernel");
#endif
  }
  return masked_mean_l2norm_forward_cpu(hidden, lengths);
}
"""


def _build():
    if torch.cuda.is_available():
        return load_inline(name="arbiter_core_l2_masked_mean_l2norm_fp32_cuda", cpp_sources=_CPP_SRC, cuda_sources=_CUDA_SRC,
                           functions=["masked_mean_l2norm_forward"], extra_cflags=["-O3", "-DARB_WITH_CUDA"],
                           extra_cuda_cflags=["-O3"])
    return load_inline(name="arbiter_core_l2_masked_mean_l2norm_fp32_cpu", cpp_sources=_CPP_SRC,
                       functions=["masked_mean_l2norm_forward"], extra_cflags=["-O3"])


_ext = _build()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, hidden: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return _ext.masked_mean_l2norm_forward(hidden.contiguous(), lengths.contiguous())
