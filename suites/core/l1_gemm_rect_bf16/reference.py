"""Rectangular bfloat16 GEMM with nn.Linear's weight layout: y = x @ W^T (W is [n, k]), the shape
of a transformer's QKV / MLP projections over a batch of tokens."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """y[m, n] = x[m, k] @ w[n, k]^T; both operands are inputs (no parameters)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return torch.matmul(x, w.t())


def get_inputs(m: int = 333, k: int = 512, n: int = 96):
    x = torch.randn(m, k).to(torch.bfloat16)
    w = (torch.randn(n, k) / k ** 0.5).to(torch.bfloat16)  # unit-scale outputs, like a trained layer
    return [x, w]


def get_init_inputs(m: int = 333, k: int = 512, n: int = 96):
    return []
