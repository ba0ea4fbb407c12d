"""Square bfloat16 GEMM, C = A @ B, as in every transformer projection (fp32 accumulation)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """C[n, n] = A[n, n] @ B[n, n], bfloat16 in and out."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)


def get_inputs(n: int = 257):
    # N(0, 1) operands: entries of C are ~sqrt(n), far above the bfloat16 atol.
    return [torch.randn(n, n).to(torch.bfloat16), torch.randn(n, n).to(torch.bfloat16)]


def get_init_inputs(n: int = 257):
    return []
