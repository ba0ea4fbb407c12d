"""Decode-time GEMV: a few tokens times a large bfloat16 weight matrix, y = x @ W^T. Entirely
bound by reading W once."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """y[batch, n] = x[batch, k] @ w[n, k]^T with batch in 1..8."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return torch.matmul(x, w.t())


def get_inputs(batch: int = 1, k: int = 1000, n: int = 777):
    return [torch.randn(batch, k).to(torch.bfloat16), (torch.randn(n, k) / k ** 0.5).to(torch.bfloat16)]


def get_init_inputs(batch: int = 1, k: int = 1000, n: int = 777):
    return []
