"""Single-precision matrix product C = A @ B."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """C[m, n] = sum_k A[m, k] * B[k, n], all float32 (no TF32)."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)


def get_inputs(m: int = 1000, k: int = 333, n: int = 517):
    return [torch.randn(m, k), torch.randn(k, n)]


def get_init_inputs(m: int = 1000, k: int = 333, n: int = 517):
    return []
