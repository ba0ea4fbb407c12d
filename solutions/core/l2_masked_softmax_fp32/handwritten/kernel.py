"""Handwritten scaled key-padding-masked softmax: one warp per row, for rows up to 3072 keys, holds
the row's unmasked scores in registers (float4 loads where the row is 16-byte aligned, scalars
otherwise) and reduces max and sum by warp shuffles, so the unmasked scores are read once, the
padded keys never, and the probabilities written once. Longer rows take one block per row with an
online (max, sum) pass and a write pass. A C++ loop per row on machines without CUDA."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# The per-element math, shared verbatim by the CUDA kernel and the CPU loop.
_COMMON = r"""// Keys [0, valid) of a row take part; keys at or past lengths[b] get probability 0.
ARB_HD int64_t valid_keys(int64_t length, int64_t k_len) { return length < 0 ? 0 : (length < k_len ? length : k_len); }

// The reference's logit of an unmasked key (its bias is 0).
ARB_HD float masked_logit(float score, float scale) { return score * scale; }

ARB_HD float unnormalised(float logit, float row_max) { return expf(logit - row_max); }

// Online (max, sum of exp(x - max)) over a thread's logits.
ARB_HD void online_add(float& m, float& s, float x) {
  if (x > m) { s = s * expf(m - x) + 1.f; m = x; } else { s += expf(x - m); }
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

template <int PACK> __device__ __forceinline__ void store_pack(float* dst, const float* v, float mul);
template <> __device__ __forceinline__ void store_pack<1>(float* dst, const float* v, float mul) { dst[0] = v[0] * mul; }
template <> __device__ __forceinline__ void store_pack<4>(float* dst, const float* v, float mul) {
  *reinterpret_cast<float4*>(dst) = make_float4(v[0] * mul, v[1] * mul, v[2] * mul, v[3] * mul);
}

// One warp per row, the row in registers: lane holds packs (it * 32 + lane) of PACK keys.
template <int PACK, int ITERS>
__global__ void softmax_warp_kernel(const float* __restrict__ scores, const int64_t* __restrict__ lengths,
                                    float* __restrict__ probs, int64_t rows, int64_t rows_per_batch, int64_t k_len,
                                    float scale) {
  const int64_t row = blockIdx.x * (int64_t)(blockDim.x >> 5) + (threadIdx.x >> 5);
  const int lane = threadIdx.x & 31;
  if (row >= rows) return;  // whole warps leave together
  const int64_t valid = valid_keys(lengths[row / rows_per_batch], k_len);
  const float* sr = scores + row * k_len;
  float* pr = probs + row * k_len;
  float v[ITERS][PACK];
  float m = -INFINITY;
#pragma unroll
  for (int it = 0; it < ITERS; ++it) {
    const int64_t c = ((int64_t)it * 32 + lane) * PACK;
    if (c + PACK <= valid) {
      load_pack<PACK>(sr + c, v[it]);
#pragma unroll
      for (int p = 0; p < PACK; ++p) v[it][p] = masked_logit(v[it][p], scale);
    } else {
#pragma unroll
      for (int p = 0; p < PACK; ++p) v[it][p] = c + p < valid ? masked_logit(sr[c + p], scale) : -INFINITY;
    }
#pragma unroll
    for (int p = 0; p < PACK; ++p) m = fmaxf(m, v[it][p]);
  }
  const float row_max = warp_max(m);
  float s = 0.f;
#pragma unroll
  for (int it = 0; it < ITERS; ++it)
#pragma unroll
    for (int p = 0; p < PACK; ++p) {
      v[it][p] = unnormalised(v[it][p], row_max);  // 0 for masked keys
      s += v[it][p];
    }
  const float inv = 1.f / warp_sum(s);
#pragma unroll
  for (int it = 0; it < ITERS; ++it) {
    const int64_t c = ((int64_t)it * 32 + lane) * PACK;
    if (c + PACK <= k_len) {
      store_pack<PACK>(pr + c, v[it], inv);
    } else {
#pragma unroll
      for (int p = 0; p < PACK; ++p)
        if (c + p < k_len) pr[c + p] = v[it][p] * inv;
    }
  }
}

// One block per row for rows too long for registers: online (max, sum), then a write pass.
__global__ void softmax_block_kernel(const float* __restrict__ scores, const int64_t* __restrict__ lengths,
                                     float* __restrict__ probs, int64_t rows_per_batch, int64_t k_len, float scale) {
  const int64_t row = blockIdx.x;
  const int64_t valid = valid_keys(lengths[row / rows_per_batch], k_len);
  const float* sr = scores + row * k_len;
  float* pr = probs + row * k_len;
  float m = -INFINITY, s = 0.f;
  for (int64_t c = threadIdx.x; c < valid; c += blockDim.x) online_add(m, s, masked_logit(sr[c], scale));
  const float row_max = block_max(m);
  const float inv = 1.f / block_sum(m == -INFINITY ? 0.f : s * expf(m - row_max));
  for (int64_t c = threadIdx.x; c < k_len; c += blockDim.x)
    pr[c] = c < valid ? unnormalised(masked_logit(sr[c], scale), row_max) * inv : 0.f;
}

template <int PACK, int ITERS>
static void launch_warp_rows(const float* s, const int64_t* len, float* p, int64_t rows, int64_t rows_per_batch, int64_t k_len,
                             float scale) {
  constexpr int rows_per_block = 4;
  const unsigned blocks = (unsigned)((rows + rows_per_block - 1) / rows_per_block);
  softmax_warp_kernel<PACK, ITERS><<<blocks, 32 * rows_per_block, 0, at::cuda::getCurrentCUDAStream()>>>(s, len, p, rows, rows_per_batch, k_len, scale);
}

// The register-resident variant whose capacity covers the row; false when none does.
static bool dispatch_warp_rows(bool vec, const float* s, const int64_t* len, float* p, int64_t rows, int64_t rows_per_batch,
                               int64_t k_len, float scale) {
  if (vec) {
    const int64_t packs = (k_len + 127) / 128;
    if (packs <= 1) launch_warp_rows<4, 1>(s, len, p, rows, rows_per_batch, k_len, scale);
    else if (packs <= 2) launch_warp_rows<4, 2>(s, len, p, rows, rows_per_batch, k_len, scale);
    else if (packs <= 4) launch_warp_rows<4, 4>(s, len, p, rows, rows_per_batch, k_len, scale);
    else if (packs <= 8) launch_warp_rows<4, 8>(s, len, p, rows, rows_per_batch, k_len, scale);
    else if (packs <= 16) launch_warp_rows<4, 16>(s, len, p, rows, rows_per_batch, k_len, scale);
    else vec = false;
    if (vec) return true;
  }
  const int64_t per_lane = (k_len + 31) / 32;
  if (per_lane <= 4) launch_warp_rows<1, 4>(s, len, p, rows, rows_per_batch, k_len, scale);
  else if (per_lane <= 16) launch_warp_rows<1, 16>(s, len, p, rows, rows_per_batch, k_len, scale);
  else if (per_lane <= 32) launch_warp_rows<1, 32>(s, len, p, rows, rows_per_batch, k_len, scale);
  else if (per_lane <= 64) launch_warp_rows<1, 64>(s, len, p, rows, rows_per_batch, k_len, scale);
  else if (per_lane <= 96) launch_warp_rows<1, 96>(s, len, p, rows, rows_per_batch, k_len, scale);
  else return false;
  return true;
}

torch::Tensor masked_softmax_forward_cuda(torch::Tensor scores, torch::Tensor lengths, double scale) {
  const c10::cuda::CUDAGuard guard(scores.device());
  auto probs = torch::empty_like(scores);
  const int64_t k_len = scores.size(3), rows_per_batch = scores.size(1) * scores.size(2);
  const int64_t rows = scores.size(0) * rows_per_batch;
  if (rows == 0 || k_len == 0) return probs;
  const float* s = scores.data_ptr<float>();
  float* p = probs.data_ptr<float>();
  const bool vec = k_len % 4 == 0 && reinterpret_cast<uintptr_t>(s) % 16 == 0 && reinterpret_cast<uintptr_t>(p) % 16 == 0;
  if (!dispatch_warp_rows(vec, s, lengths.data_ptr<int64_t>(), p, rows, rows_per_batch, k_len, (float)scale))
    softmax_block_kernel<<<(unsigned)rows, 512, 0, at::cuda::getCurrentCUDAStream()>>>(s, lengths.data_ptr<int64_t>(), p, rows_per_batch, k_len, (float)scale);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return probs;
}
"""

_CPP_SRC = r"""#include <algorithm>
#include <cmath>
#include <cstdint>
#define ARB_HD inline
using bf16 = at::BFloat16;
""" + _COMMON + r"""
torch::Tensor masked_softmax_forward_cpu(torch::Tensor scores, torch::Tensor lengths, double scale) {
  auto probs = torch::empty_like(scores);
  const int64_t k_len = scores.size(3), rows_per_batch = scores.size(1) * scores.size(2);
  const int64_t rows = scores.size(0) * rows_per_batch;
  const float* sp = scores.data_ptr<float>();
  const int64_t* lp = lengths.data_ptr<int64_t>();
  float* pp = probs.data_ptr<float>();
  const float fscale = (float)scale;
  at::parallel_for(0, rows, 16, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t valid = valid_keys(lp[r / rows_per_batch], k_len);
      const float* sr = sp + r * k_len;
      float* pr = pp + r * k_len;
      float m = -INFINITY;
      for (int64_t c = 0; c < valid; ++c) m = std::max(m, masked_logit(sr[c], fscale));
      double s = 0.0;
      for (int64_t c = 0; c < valid; ++c) { pr[c] = unnormalised(masked_logit(sr[c], fscale), m); s += pr[c]; }
      const float inv = (float)(1.0 / s);
      for (int64_t c = 0; c < valid; ++c) pr[c] *= inv;
      for (int64_t c = valid; c < k_len; ++c) pr[c] = 0.f;
    }
  });
  return probs;
}

#ifdef ARB_WITH_CUDA
torch::Tensor masked_softmax_forward_cuda(torch::Tensor scores, torch::Tensor lengths, double scale);
#endif

torch::Tensor masked_softmax_forward(torch::Tensor scores, torch::Tensor lengths, double scale) {
  TORCH_CHECK(scores.scalar_type() == torch::kFloat32 && scores.dim() == 4 && scores.is_contiguous(), "masked_softmax_forward: contiguous float32 scores [b, h, q, k] expected");
  TORCH_CHECK(lengths.scalar_type() == torch::kInt64 && lengths.numel() == scores.size(0) && lengths.is_contiguous(), "masked_softmax_forward: int64 lengths [b] expected");
  if (scores.is_cuda()) {
#ifdef ARB_WITH_CUDA
    return masked_softmax_forward_cuda(scores, lengths, scale);
#else
    TORCH_CHECK(false, "masked_softmax_forward: this build has no CUDA kernel");
#endif
  }
  return masked_softmax_forward_cpu(scores, lengths, scale);
}
"""


def _build():
    if torch.cuda.is_available():
        return load_inline(name="arbiter_core_l2_masked_softmax_fp32_cuda", cpp_sources=_CPP_SRC, cuda_sources=_CUDA_SRC,
                           functions=["masked_softmax_forward"], extra_cflags=["-O3", "-DARB_WITH_CUDA"],
                           extra_cuda_cflags=["-O3"])
    return load_inline(name="arbiter_core_l2_masked_softmax_fp32_cpu", cpp_sources=_CPP_SRC,
                       functions=["masked_softmax_forward"], extra_cflags=["-O3"])


_ext = _build()


class ModelNew(nn.Module):
    def __init__(self, head_dim: int):
        super().__init__()
        self.scale = head_dim ** -0.5

    def forward(self, scores: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return _ext.masked_softmax_forward(scores.contiguous(), lengths.contiguous(), self.scale)
