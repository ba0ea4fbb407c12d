"""SwiGLU gating: split the last dimension in two halves a | b and return silu(a) * b."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """x[rows, 2 * hidden] -> silu(x[:, :hidden]) * x[:, hidden:], as after a fused gate/up projection."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b = x.chunk(2, dim=-1)
        return F.silu(a) * b


def get_inputs(rows: int = 1000, hidden: int = 333):
    return [torch.randn(rows, 2 * hidden)]


def get_init_inputs(rows: int = 1000, hidden: int = 333):
    return []
