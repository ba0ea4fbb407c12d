"""RMSNorm over the last dimension with a learned per-feature weight."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """y = x / sqrt(mean(x^2, last dim) + eps) * weight."""

    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        # Not all ones: a kernel that forgets the weight must fail.
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight


def get_inputs(rows: int = 1000, hidden: int = 333):
    return [torch.randn(rows, hidden)]


def get_init_inputs(rows: int = 1000, hidden: int = 333):
    return [hidden]
