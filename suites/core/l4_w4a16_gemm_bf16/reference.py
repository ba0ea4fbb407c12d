"""W4A16 GEMM (GPTQ/AWQ-style weight-only quantisation, as Marlin and Machete run it): bfloat16
activations times 4-bit weights packed two per byte, dequantised with one bfloat16 scale per group
of 128 input channels: w[n, k] = (q[n, k] - 8) * scale[n, k // 128]."""
import torch
import torch.nn as nn


def unpack_int4(packed: torch.Tensor) -> torch.Tensor:
    """[n, k/2] uint8 -> [n, k] int values 0..15; element 2j is the low nibble of byte j."""
    low = (packed & 0x0F).to(torch.int16)
    high = (packed >> 4).to(torch.int16)
    return torch.stack((low, high), dim=-1).reshape(packed.shape[0], -1)


class Model(nn.Module):
    """x [m, k] bfloat16, qweight [n, k/2] uint8, scales [n, k/128] bfloat16 -> y = x @ W^T, [m, n]
    bfloat16; W is dequantised in float32 and rounded to bfloat16 once."""

    def __init__(self, group: int):
        super().__init__()
        self.group = group

    def forward(self, x: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
        q = unpack_int4(qweight).float() - 8.0
        w = (q * scales.float().repeat_interleave(self.group, dim=1)).to(torch.bfloat16)
        return torch.matmul(x, w.t())


def get_inputs(m: int = 33, k: int = 384, n: int = 97, group: int = 128):
    x = torch.randn(m, k).to(torch.bfloat16)
    qweight = torch.randint(0, 256, (n, k // 2), dtype=torch.int64).to(torch.uint8)
    scales = (0.02 + 0.01 * torch.rand(n, k // group)).to(torch.bfloat16)
    return [x, qweight, scales]


def get_init_inputs(m: int = 33, k: int = 384, n: int = 97, group: int = 128):
    return [group]
