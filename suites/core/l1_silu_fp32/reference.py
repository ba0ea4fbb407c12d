"""SiLU (swish), elementwise on float32: y = x * sigmoid(x)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(x)


def get_inputs(rows: int = 1000, cols: int = 333):
    return [2.0 * torch.randn(rows, cols)]


def get_init_inputs(rows: int = 1000, cols: int = 333):
    return []
