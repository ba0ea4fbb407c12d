"""RMSNorm as Llama computes it: statistics in float32, the product rounded back to bfloat16,
then scaled by the bfloat16 weight."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """y = weight * bf16(x * rsqrt(mean(x^2) + eps)), x upcast to float32 for the statistics."""

    def __init__(self, hidden: int):
        super().__init__()
        self.weight = nn.Parameter((1.0 + 0.1 * torch.randn(hidden)).to(torch.bfloat16))
        self.eps = 1e-6

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.float()
        normed = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * normed.to(x.dtype)


def get_inputs(rows: int = 1000, hidden: int = 333):
    return [(3.0 * torch.randn(rows, hidden)).to(torch.bfloat16)]


def get_init_inputs(rows: int = 1000, hidden: int = 333):
    return [hidden]
