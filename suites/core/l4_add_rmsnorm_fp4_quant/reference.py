"""Residual add + RMSNorm + FP4 block quantisation, fused as an FP4 inference engine runs it
before every quantised GEMM: the normalised activations leave the kernel only as MXFP4 codes
(blocks of 32 with a shared power-of-two scale).

Codes are returned unpacked, one signed int8 per element (sign * e2m1 magnitude code, -7..7), so
that neighbouring FP4 levels differ by exactly 1: the tolerance allows one level, which a
different (correct) summation order in the RMS statistic can cause at a rounding boundary."""
import torch
import torch.nn as nn


# FP4 (e2m1) magnitudes by code 0..7 and the midpoints between neighbours. Rounding is to the
# nearest level; a value exactly on a midpoint goes to the even code (round half to even, as the
# OCP MX specification prescribes). Values above 6 saturate to 6.
E2M1_LEVELS = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
E2M1_MIDPOINTS = (0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0)


def e2m1_code(v: torch.Tensor) -> torch.Tensor:
    """float32 -> int8 magnitude code 0..7 of the nearest e2m1 value to |v| (ties to even code)."""
    mag = v.abs()
    mids = torch.tensor(E2M1_MIDPOINTS, dtype=mag.dtype, device=mag.device)
    code = torch.bucketize(mag, mids, right=False)                # mids[code-1] < mag <= mids[code]
    tie = (code < 7) & (mag == mids[code.clamp(max=6)]) & (code % 2 == 1)
    return (code + tie.to(code.dtype)).to(torch.int8)


def shared_exponent(blocks: torch.Tensor, element_emax: int) -> torch.Tensor:
    """Per block (last dim) the MX shared exponent floor(log2(amax)) - element_emax, as an int32
    (amax 0 gives the smallest, -127)."""
    amax = blocks.abs().amax(dim=-1)
    _, exponent = torch.frexp(amax)                               # amax = m * 2^exponent, m in [0.5, 1)
    return torch.where(amax > 0, exponent.to(torch.int32) - 1 - element_emax, torch.full_like(exponent, -127, dtype=torch.int32))


class Model(nn.Module):
    """x, residual [t, hidden] bfloat16 (hidden % 32 == 0) -> (codes [t, hidden] int8, scales
    [t, hidden/32] uint8 = shared exponent + 127). y = weight * bf16(rmsnorm_fp32(x + residual))
    as in Llama, then MXFP4 per 32 values of y."""

    def __init__(self, hidden: int):
        super().__init__()
        self.weight = nn.Parameter((1.0 + 0.1 * torch.randn(hidden)).to(torch.bfloat16))
        self.eps = 1e-6

    def forward(self, x: torch.Tensor, residual: torch.Tensor):
        summed = (x + residual).float()
        normed = (summed * torch.rsqrt(summed.pow(2).mean(-1, keepdim=True) + self.eps)).to(torch.bfloat16)
        y = (self.weight * normed).float()
        tokens, hidden = y.shape
        blocks = y.reshape(tokens, hidden // 32, 32)
        exponent = shared_exponent(blocks, 2).clamp(-127, 127)
        scaled = torch.ldexp(blocks, (-exponent)[..., None].to(torch.float32))
        code = e2m1_code(scaled)
        code = torch.where(scaled < 0, -code, code).reshape(tokens, hidden)
        return code, (exponent + 127).to(torch.uint8)


def get_inputs(tokens: int = 333, hidden: int = 256):
    x = torch.randn(tokens, hidden).to(torch.bfloat16)
    residual = (2.0 * torch.randn(tokens, hidden)).to(torch.bfloat16)
    return [x, residual]


def get_init_inputs(tokens: int = 333, hidden: int = 256):
    return [hidden]
