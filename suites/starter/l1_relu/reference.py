"""Elementwise ReLU over a 2-D float32 tensor."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """y = max(x, 0), elementwise."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs(rows: int = 1000, cols: int = 333):
    # Standard normal: half the elements are negative, so the output is neither the input nor zero.
    return [torch.randn(rows, cols)]


def get_init_inputs(rows: int = 1000, cols: int = 333):
    return []
