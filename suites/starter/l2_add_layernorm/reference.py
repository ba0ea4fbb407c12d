"""Residual add followed by LayerNorm over the last dimension, with learned weight and bias."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """y = layer_norm(x + residual) * weight + bias (biased variance, as nn.LayerNorm)."""

    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        self.hidden = hidden
        self.eps = eps
        # Not the identity affine: a kernel that drops either one must fail.
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(hidden))
        self.bias = nn.Parameter(0.1 * torch.randn(hidden))

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x + residual, (self.hidden,), self.weight, self.bias, self.eps)


def get_inputs(rows: int = 1000, hidden: int = 333):
    # The residual stream has a non-zero mean, so skipping the mean subtraction shows.
    return [torch.randn(rows, hidden), 0.5 + torch.randn(rows, hidden)]


def get_init_inputs(rows: int = 1000, hidden: int = 333):
    return [hidden]
