"""Irregular float32 GEMM: no dimension a multiple of any tile size (primes and near-powers)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """C[m, n] = A[m, k] @ B[k, n] in float32 (a TF32 kernel is a precision downgrade)."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)


def get_inputs(m: int = 211, k: int = 157, n: int = 331):
    # Operands scaled so that C stays unit-scale whatever k is.
    return [torch.randn(m, k) / k ** 0.25, torch.randn(k, n) / k ** 0.25]


def get_init_inputs(m: int = 211, k: int = 157, n: int = 331):
    return []
