"""Batched bfloat16 GEMM, C[b] = A[b] @ B[b]: per-head products of attention and grouped GEMMs."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """C[batch, m, n] = A[batch, m, k] @ B[batch, k, n]."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.bmm(a, b)


def get_inputs(batch: int = 12, m: int = 100, k: int = 64, n: int = 77):
    return [torch.randn(batch, m, k).to(torch.bfloat16), torch.randn(batch, k, n).to(torch.bfloat16)]


def get_init_inputs(batch: int = 12, m: int = 100, k: int = 64, n: int = 77):
    return []
