"""Block-scaled FP8 GEMM as DeepSeek-V3 trains and serves with it (DeepGEMM): e4m3 operands,
activations scaled per token per 128 channels, weights per 128 x 128 block, bfloat16 output.

FP8 emulation: torch 1.13 has no float8 dtype, so the operands are bfloat16 tensors whose values
are all exactly representable in float8_e4m3fn (3 mantissa bits, |v| <= 448). The conversion to
float8_e4m3fn is lossless: a kernel on an FP8-capable GPU may convert and use FP8 tensor cores.
This file never touches a float8 dtype, so it imports on any torch."""
import torch
import torch.nn as nn


def round_to_e4m3(v: torch.Tensor) -> torch.Tensor:
    """Nearest float8_e4m3fn value of float32 v (saturating at 448), returned as float32."""
    v = v.clamp(-448.0, 448.0)
    mantissa, exponent = torch.frexp(v)                      # v = mantissa * 2^exponent, |mantissa| in [0.5, 1)
    normal = torch.ldexp(torch.round(mantissa * 16.0), exponent - 4)
    subnormal = torch.round(v * 512.0) / 512.0               # below 2^-6 the quantum is 2^-9
    return torch.where(v.abs() < 2.0 ** -6, subnormal, normal)


class Model(nn.Module):
    """a [m, k], b [n, k] (e4m3 values in bfloat16), a_scale [m, k/128], b_scale [n/128, k/128]
    float32 -> c [m, n] bfloat16, c = sum over k-blocks g of (a_g b_g^T) * a_scale[:, g] * b_scale[:, g]."""

    def __init__(self):
        super().__init__()

    def forward(self, a, b, a_scale, b_scale):
        a32 = a.float() * a_scale.repeat_interleave(128, dim=1)
        b32 = b.float() * b_scale.repeat_interleave(128, dim=0).repeat_interleave(128, dim=1)
        return torch.matmul(a32, b32.t()).to(torch.bfloat16)


def _quantise(x, rows_per_block):
    """Block amax scaling to the e4m3 range: (e4m3 values as bfloat16, float32 scales)."""
    r, c = x.shape
    blocks = x.reshape(r // rows_per_block, rows_per_block, c // 128, 128)
    scale = blocks.abs().amax(dim=(1, 3)).clamp_min(1e-12) / 448.0           # [r/rows, c/128]
    q = round_to_e4m3(blocks / scale[:, None, :, None]).reshape(r, c)
    return q.to(torch.bfloat16), scale


def get_inputs(m: int = 77, k: int = 256, n: int = 128):
    a, a_scale = _quantise(torch.randn(m, k), 1)
    b, b_scale = _quantise(torch.randn(n, k) / k ** 0.5, 128)
    return [a, b, a_scale, b_scale]


def get_init_inputs(m: int = 77, k: int = 256, n: int = 128):
    return []
