"""Handwritten rotary embedding on queries and keys: one block per token computes the token's cos
and sin once into shared memory (float32 angles, full-range sincos), then rotates every q and k
head from that table, reading and writing 8 bfloat16 (16 bytes) from each half of a head at a time
where aligned and one pair at a time otherwise; q and k are read once and written once, nothing
else touches memory. A C++ loop per token on machines without CUDA."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# The per-element math, shared verbatim by the CUDA kernel and the CPU loop.
_COMMON = r"""// cos and sin of frequency inv_freq at an integer position; the angle is rounded to float32 as the
// reference rounds positions.float() * inv_freq.
ARB_HD void rope_cos_sin(int64_t pos, float inv_freq, float& c, float& s) {
  const float angle = (float)pos * inv_freq;
  c = cosf(angle);
  s = sinf(angle);
}

// The pair (x[i], x[i + d/2]) rotated: x * cos + rotate_half(x) * sin, rounded to bfloat16.
ARB_HD void rope_pair(float x1, float x2, float c, float s, bf16& y1, bf16& y2) {
  y1 = bf16(x1 * c - x2 * s);
  y2 = bf16(x2 * c + x1 * s);
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
// Rotates 8 pairs: src[i..i+8) with src[i+half..i+half+8), 16-byte loads and stores.
__device__ __forceinline__ void rope_rotate8(const bf16* __restrict__ src, bf16* __restrict__ dst, int i, int half,
                                             const float* table) {
  alignas(16) bf16 lo[8], hi[8];
  *reinterpret_cast<uint4*>(lo) = *reinterpret_cast<const uint4*>(src + i);
  *reinterpret_cast<uint4*>(hi) = *reinterpret_cast<const uint4*>(src + i + half);
#pragma unroll
  for (int j = 0; j < 8; ++j) rope_pair(float(lo[j]), float(hi[j]), table[i + j], table[half + i + j], lo[j], hi[j]);
  *reinterpret_cast<uint4*>(dst + i) = *reinterpret_cast<const uint4*>(lo);
  *reinterpret_cast<uint4*>(dst + i + half) = *reinterpret_cast<const uint4*>(hi);
}

// One block per token. An item is one head and 8 pairs (vec) or one pair of it; q heads come first.
__global__ void rope_kernel(const bf16* __restrict__ q, const bf16* __restrict__ k, const int64_t* __restrict__ pos,
                            const float* __restrict__ inv_freq, bf16* __restrict__ q_out, bf16* __restrict__ k_out,
                            int q_heads, int kv_heads, int dim, bool vec) {
  extern __shared__ float table[];  // cos in [0, half), sin in [half, dim)
  const int half = dim / 2;
  const int64_t token = blockIdx.x;
  const int64_t p = pos[token];
  for (int i = threadIdx.x; i < half; i += blockDim.x) rope_cos_sin(p, inv_freq[i], table[i], table[half + i]);
  __syncthreads();
  const int width = vec ? 8 : 1;
  const int per_head = half / width;
  const int items = (q_heads + kv_heads) * per_head;
  for (int item = threadIdx.x; item < items; item += blockDim.x) {
    int head = item / per_head;
    const int i = (item - head * per_head) * width;
    const bool is_q = head < q_heads;
    if (!is_q) head -= q_heads;
    const int64_t offset = (token * (is_q ? q_heads : kv_heads) + head) * (int64_t)dim;
    const bf16* src = (is_q ? q : k) + offset;
    bf16* dst = (is_q ? q_out : k_out) + offset;
    if (vec) {
      rope_rotate8(src, dst, i, half, table);
    } else {
      bf16 y1, y2;
      rope_pair(float(src[i]), float(src[i + half]), table[i], table[half + i], y1, y2);
      dst[i] = y1;
      dst[i + half] = y2;
    }
  }
}

static bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

std::vector<torch::Tensor> rope_forward_cuda(torch::Tensor q, torch::Tensor k, torch::Tensor pos, torch::Tensor inv_freq) {
  const c10::cuda::CUDAGuard guard(q.device());
  auto q_out = torch::empty_like(q);
  auto k_out = torch::empty_like(k);
  const int64_t tokens = q.size(0);
  const int q_heads = (int)q.size(1), kv_heads = (int)k.size(1), dim = (int)q.size(2);
  if (tokens == 0 || dim == 0) return {q_out, k_out};
  const bool vec = dim % 16 == 0 && aligned16(q.data_ptr()) && aligned16(k.data_ptr()) && aligned16(q_out.data_ptr()) &&
                   aligned16(k_out.data_ptr());
  // Threads: the items of one token in as few rounds of at most 128 threads as possible.
  const int64_t items = (int64_t)(q_heads + kv_heads) * (dim / 2) / (vec ? 8 : 1);
  const int64_t rounds = std::max<int64_t>(1, (items + 127) / 128);
  const int threads = (int)std::max<int64_t>(32, ((items + rounds - 1) / rounds + 31) / 32 * 32);
  rope_kernel<<<(unsigned)tokens, threads, dim * sizeof(float), at::cuda::getCurrentCUDAStream()>>>(
      q.data_ptr<bf16>(), k.data_ptr<bf16>(), pos.data_ptr<int64_t>(), inv_freq.data_ptr<float>(), q_out.data_ptr<bf16>(),
      k_out.data_ptr<bf16>(), q_heads, kv_heads, dim, vec);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return {q_out, k_out};
}
"""

_CPP_SRC = r"""#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>
#define ARB_HD inline
using bf16 = at::BFloat16;
""" + _COMMON + r"""
// Rotates heads [t, heads, dim] of one token with its cos/sin table.
static void rope_heads_cpu(const bf16* src, bf16* dst, int64_t heads, int64_t dim, const float* cs, const float* sn) {
  const int64_t half = dim / 2;
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < half; ++i) rope_pair(float(src[h * dim + i]), float(src[h * dim + half + i]), cs[i], sn[i], dst[h * dim + i], dst[h * dim + half + i]);
}

std::vector<torch::Tensor> rope_forward_cpu(torch::Tensor q, torch::Tensor k, torch::Tensor pos, torch::Tensor inv_freq) {
  auto q_out = torch::empty_like(q);
  auto k_out = torch::empty_like(k);
  const int64_t tokens = q.size(0), q_heads = q.size(1), kv_heads = k.size(1), dim = q.size(2), half = dim / 2;
  const bf16* qp = q.data_ptr<bf16>();
  const bf16* kp = k.data_ptr<bf16>();
  const int64_t* pp = pos.data_ptr<int64_t>();
  const float* fp = inv_freq.data_ptr<float>();
  bf16* qo = q_out.data_ptr<bf16>();
  bf16* ko = k_out.data_ptr<bf16>();
  at::parallel_for(0, tokens, 16, [&](int64_t begin, int64_t end) {
    std::vector<float> cs(half), sn(half);
    for (int64_t t = begin; t < end; ++t) {
      for (int64_t i = 0; i < half; ++i) rope_cos_sin(pp[t], fp[i], cs[i], sn[i]);
      rope_heads_cpu(qp + t * q_heads * dim, qo + t * q_heads * dim, q_heads, dim, cs.data(), sn.data());
      rope_heads_cpu(kp + t * kv_heads * dim, ko + t * kv_heads * dim, kv_heads, dim, cs.data(), sn.data());
    }
  });
  return {q_out, k_out};
}

#ifdef ARB_WITH_CUDA
std::vector<torch::Tensor> rope_forward_cuda(torch::Tensor q, torch::Tensor k, torch::Tensor pos, torch::Tensor inv_freq);
#endif

std::vector<torch::Tensor> rope_forward(torch::Tensor q, torch::Tensor k, torch::Tensor pos, torch::Tensor inv_freq) {
  TORCH_CHECK(q.scalar_type() == torch::kBFloat16 && k.scalar_type() == torch::kBFloat16 && q.dim() == 3 && k.dim() == 3 &&
              q.is_contiguous() && k.is_contiguous(), "rope_forward: contiguous bfloat16 q [t, hq, d], k [t, hk, d] expected");
  TORCH_CHECK(k.size(0) == q.size(0) && k.size(2) == q.size(2) && q.size(2) % 2 == 0, "rope_forward: q and k must share t and an even d");
  TORCH_CHECK(pos.scalar_type() == torch::kInt64 && pos.numel() == q.size(0) && pos.is_contiguous(), "rope_forward: int64 positions [t] expected");
  TORCH_CHECK(inv_freq.scalar_type() == torch::kFloat32 && inv_freq.numel() == q.size(2) / 2 && inv_freq.is_contiguous(), "rope_forward: float32 inv_freq [d/2] expected");
  if (q.is_cuda()) {
#ifdef ARB_WITH_CUDA
    return rope_forward_cuda(q, k, pos, inv_freq);
#else
    TORCH_CHECK(false, "rope_forward: this build has no CUDA kernel");
#endif
  }
  return rope_forward_cpu(q, k, pos, inv_freq);
}
"""


def _build():
    if torch.cuda.is_available():
        return load_inline(name="arbiter_core_l2_rope_qk_bf16_cuda", cpp_sources=_CPP_SRC, cuda_sources=_CUDA_SRC,
                           functions=["rope_forward"], extra_cflags=["-O3", "-DARB_WITH_CUDA"],
                           extra_cuda_cflags=["-O3"])
    return load_inline(name="arbiter_core_l2_rope_qk_bf16_cpu", cpp_sources=_CPP_SRC, functions=["rope_forward"],
                       extra_cflags=["-O3"])


_ext = _build()


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.register_buffer("inv_freq", 500000.0 ** (-torch.arange(0, dim, 2, dtype=torch.float32) / dim))

    def forward(self, q: torch.Tensor, k: torch.Tensor, positions: torch.Tensor):
        q_out, k_out = _ext.rope_forward(q.contiguous(), k.contiguous(), positions.contiguous(), self.inv_freq.contiguous())
        return q_out, k_out
