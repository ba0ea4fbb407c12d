"""GELU with the tanh approximation (GPT-2, Gemma), elementwise on bfloat16 activations."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x, approximate="tanh")


def get_inputs(rows: int = 1000, cols: int = 333):
    return [(2.0 * torch.randn(rows, cols)).to(torch.bfloat16)]


def get_init_inputs(rows: int = 1000, cols: int = 333):
    return []
