"""GeGLU gating (T5, Gemma): x = [a | b] along the last dimension, y = gelu_tanh(a) * b, bfloat16."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b = x.chunk(2, dim=-1)
        return F.gelu(a, approximate="tanh") * b


def get_inputs(rows: int = 1000, hidden: int = 333):
    return [(1.5 * torch.randn(rows, 2 * hidden)).to(torch.bfloat16)]


def get_init_inputs(rows: int = 1000, hidden: int = 333):
    return []
