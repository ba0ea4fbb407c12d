"""SiLU x mul + block quantisation, the activation of a quantised SwiGLU MLP: y = silu(a) * b on
the two halves of the gate-up output, quantised on the fly to 8-bit integers in blocks of 32 with
a shared power-of-two scale (MXINT8), ready for an int8 down-projection."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """x [t, 2 * inter] bfloat16 (inter % 32 == 0) -> (codes [t, inter] int8, scales [t, inter/32]
    uint8). y = silu(a) * b in float32; per block e = floor(log2(amax)) - 6, codes =
    clamp(round_half_even(y / 2^e), -127, 127), scales = e + 127."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        a, b = x.float().chunk(2, dim=-1)
        y = F.silu(a) * b
        tokens, inter = y.shape
        blocks = y.reshape(tokens, inter // 32, 32)
        amax = blocks.abs().amax(dim=-1)
        _, exponent = torch.frexp(amax)
        exponent = torch.where(amax > 0, exponent - 1 - 6, torch.full_like(exponent, -127)).clamp(-127, 127)
        scaled = torch.ldexp(blocks, (-exponent)[..., None].to(torch.float32))
        codes = torch.round(scaled).clamp(-127, 127).to(torch.int8).reshape(tokens, inter)
        return codes, (exponent + 127).to(torch.uint8)


def get_inputs(tokens: int = 333, inter: int = 160):
    return [(2.0 * torch.randn(tokens, 2 * inter)).to(torch.bfloat16)]


def get_init_inputs(tokens: int = 333, inter: int = 160):
    return []
