"""Mean over the middle dimension of a 3-D float32 tensor (sequence pooling): a strided
reduction, where consecutive threads must walk the fast dimension, not the reduced one."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """y[b, d] = mean over s of x[b, s, d]."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.mean(dim=1)


def get_inputs(batch: int = 3, seq: int = 1000, dim: int = 333):
    # A per-channel offset keeps the means away from zero (a mean of N(0, 1) is ~1/sqrt(seq)).
    return [torch.randn(batch, seq, dim) + torch.linspace(-2.0, 2.0, dim)]


def get_init_inputs(batch: int = 3, seq: int = 1000, dim: int = 333):
    return []
