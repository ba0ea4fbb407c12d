"""Handwritten head transpose (bfloat16) [b, s, h, d] -> [b, h, s, d]: a row-permuting copy walked in
output order, so the stores are coalesced 16-byte streaming stores and each source row of d elements is read by
consecutive lanes in 16-byte pieces (8, 4, 2 or 1 elements where d, x's strides or its address allow no wider
piece). An output piece's (b, h, s, column) comes from multiply-shift division, four pieces are in flight per
thread, and a grid of resident blocks strides over the output. x is read in place through its strides (the
copy that would make it contiguous is the op under test). A C++ loop per output row on machines without CUDA."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# The row mapping, shared verbatim by the CUDA kernel and the CPU loop.
_COMMON = r"""// Plain division: the CPU loop, and the GPU kernel when an index may reach 2^31.
struct div64 {
  int64_t div;
};
ARB_HD int64_t div_of(const div64& f, int64_t n) { return n / f.div; }

// Offset in x (strides sb, ss, sh) of the row that output row `row` ([b, h, s] order) copies.
template <typename I, typename D>
ARB_HD int64_t source_row(I row, const D& seq, const D& heads, int64_t sb, int64_t ss, int64_t sh) {
  const I bh = div_of(seq, row), b = div_of(heads, bh);
  return (int64_t)b * sb + (int64_t)(row - bh * seq.div) * ss + (int64_t)(bh - b * heads.div) * sh;
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
""" + _COMMON + r"""
// n / div for n < 2^31 as a multiply-high, an add and a shift (as PyTorch's IntDivider does): three such
// divisions per 16-byte piece would otherwise cost more issue slots than the copy itself.
struct fast_div {
  uint32_t div, mul, shift;
};

static fast_div make_fast_div(int64_t d) {
  uint32_t shift = 0;
  while ((uint64_t{1} << shift) < (uint64_t)d) ++shift;
  return {(uint32_t)d, (uint32_t)((((uint64_t{1} << shift) - (uint64_t)d) << 32) / (uint64_t)d + 1), shift};
}

__device__ __forceinline__ uint32_t div_of(const fast_div& f, uint32_t n) { return (__umulhi(n, f.mul) + n) >> f.shift; }

constexpr int kThreads = 256;

// Pieces per thread per step: 64 bytes in flight for 16-byte pieces, eight loads for the narrower ones.
template <typename V> constexpr int kPieces = sizeof(V) >= 16 ? 4 : 8;

// Output piece i ([b, h, s, column] order) copies the source row's piece i % vpr (stride sd pieces, 1 except
// for 1-element pieces). A thread's U pieces lie a grid apart, so a small output still spreads over every SM; all
// of a step's loads are issued before its stores.
template <typename V, typename I, typename D>
__global__ void __launch_bounds__(kThreads) heads_kernel(const V* __restrict__ x, V* __restrict__ y, I n, D vpr, D seq,
                                                         D heads, int64_t sb, int64_t ss, int64_t sh, int64_t sd) {
  constexpr int U = kPieces<V>;
  const I grid = (I)gridDim.x * kThreads;
  for (I base = (I)blockIdx.x * kThreads + threadIdx.x; base < n; base += grid * U) {
    V v[U];
#pragma unroll
    for (int k = 0; k < U; ++k) {
      const I i = base + (I)k * grid;
      if (i < n) {
        const I row = div_of(vpr, i);
        v[k] = __ldg(x + source_row(row, seq, heads, sb, ss, sh) + (int64_t)(i - row * vpr.div) * sd);
      }
    }
#pragma unroll
    for (int k = 0; k < U; ++k) {
      const I i = base + (I)k * grid;
      if (i < n) __stcs(y + i, v[k]);
    }
  }
}

template <typename K> static int resident_blocks(K kernel) {
  int blocks = 0;
  C10_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kThreads, 0));
  return std::max(blocks, 1);
}

// Strides and row length arrive in elements; E = elements per piece divides all of them. One piece per thread
// until the resident blocks are all busy, U per thread per step past that.
template <typename V>
static void launch_heads(const bf16* x, bf16* y, int64_t rows, int64_t d, int64_t seq, int64_t heads, int64_t sb,
                         int64_t ss, int64_t sh, int64_t sd, cudaStream_t stream) {
  constexpr int64_t E = sizeof(V) / sizeof(bf16);
  const int64_t vpr = d / E, n = rows * vpr;
  const int64_t tiles = (n + kThreads - 1) / kThreads;
  const int64_t sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
  const V* xv = reinterpret_cast<const V*>(x);
  V* yv = reinterpret_cast<V*>(y);
  if (n < (int64_t{1} << 31)) {  // fast_div's range; i stays below n + U * grid < 2^32
    static const int per_sm = resident_blocks(heads_kernel<V, uint32_t, fast_div>);
    const unsigned blocks = (unsigned)std::min(tiles, sms * per_sm);
    heads_kernel<V, uint32_t, fast_div><<<blocks, kThreads, 0, stream>>>(
        xv, yv, (uint32_t)n, make_fast_div(vpr), make_fast_div(seq), make_fast_div(heads), sb / E, ss / E, sh / E, sd);
  } else {
    static const int per_sm = resident_blocks(heads_kernel<V, int64_t, div64>);
    const unsigned blocks = (unsigned)std::min(tiles, sms * per_sm);
    heads_kernel<V, int64_t, div64><<<blocks, kThreads, 0, stream>>>(xv, yv, n, div64{vpr}, div64{seq}, div64{heads},
                                                                     sb / E, ss / E, sh / E, sd);
  }
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

torch::Tensor transpose_heads_cuda(torch::Tensor x, torch::Tensor y, int64_t sb, int64_t ss, int64_t sh, int64_t sd) {
  const c10::cuda::CUDAGuard guard(x.device());
  const int64_t seq = x.size(1), heads = x.size(2), d = x.size(3), rows = x.size(0) * seq * heads;
  const bf16* xp = x.data_ptr<bf16>();
  bf16* yp = y.data_ptr<bf16>();
  // The widest piece of E elements that every source row start, d and both addresses are multiples of.
  auto fits = [&](int64_t e) {
    return (e == 1 || sd == 1) && d % e == 0 && sb % e == 0 && ss % e == 0 && sh % e == 0 &&
           reinterpret_cast<uintptr_t>(xp) % (2 * e) == 0 && reinterpret_cast<uintptr_t>(yp) % (2 * e) == 0;
  };
  const auto stream = at::cuda::getCurrentCUDAStream();
  if (fits(8))
    launch_heads<uint4>(xp, yp, rows, d, seq, heads, sb, ss, sh, sd, stream);
  else if (fits(4))
    launch_heads<uint2>(xp, yp, rows, d, seq, heads, sb, ss, sh, sd, stream);
  else if (fits(2))
    launch_heads<unsigned>(xp, yp, rows, d, seq, heads, sb, ss, sh, sd, stream);
  else
    launch_heads<unsigned short>(xp, yp, rows, d, seq, heads, sb, ss, sh, sd, stream);
  return y;
}
"""

_CPP_SRC = r"""#include <algorithm>
#include <cmath>
#include <cstdint>
#define ARB_HD inline
using bf16 = at::BFloat16;
""" + _COMMON + r"""
#ifdef ARB_WITH_CUDA
torch::Tensor transpose_heads_cuda(torch::Tensor x, torch::Tensor y, int64_t sb, int64_t ss, int64_t sh, int64_t sd);
#endif

torch::Tensor transpose_heads_forward(torch::Tensor x) {
  TORCH_CHECK(x.scalar_type() == torch::kBFloat16 && x.dim() == 4, "transpose_heads_forward: bfloat16 [b, s, h, d] expected");
  auto y = torch::empty({x.size(0), x.size(2), x.size(1), x.size(3)}, x.options());
  if (y.numel() == 0) return y;
  // A dimension of size 1 is never stepped along: its stride is set to 0 so that it cannot spoil the alignment.
  auto stride = [&](int64_t k) { return x.size(k) == 1 ? int64_t{0} : x.stride(k); };
  const int64_t sb = stride(0), ss = stride(1), sh = stride(2), sd = stride(3);
  if (x.is_cuda()) {
#ifdef ARB_WITH_CUDA
    return transpose_heads_cuda(x, y, sb, ss, sh, sd);
#else
    TORCH_CHECK(false, "transpose_heads_forward: this build has no CUDA kernel");
#endif
  }
  const int64_t seq = x.size(1), heads = x.size(2), d = x.size(3), rows = x.size(0) * seq * heads;
  const bf16* xp = x.data_ptr<bf16>();
  bf16* yp = y.data_ptr<bf16>();
  at::parallel_for(0, rows, std::max<int64_t>(1, 32768 / d), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const bf16* src = xp + source_row(r, div64{seq}, div64{heads}, sb, ss, sh);
      for (int64_t c = 0; c < d; ++c) yp[r * d + c] = src[c * sd];
    }
  });
  return y;
}
"""


def _build():
    if torch.cuda.is_available():
        return load_inline(name="arbiter_core_l1_transpose_heads_bf16_cuda", cpp_sources=_CPP_SRC,
                           cuda_sources=_CUDA_SRC, functions=["transpose_heads_forward"],
                           extra_cflags=["-O3", "-DARB_WITH_CUDA"], extra_cuda_cflags=["-O3"])
    return load_inline(name="arbiter_core_l1_transpose_heads_bf16_cpu", cpp_sources=_CPP_SRC,
                       functions=["transpose_heads_forward"], extra_cflags=["-O3"])


_ext = _build()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.transpose_heads_forward(x)
