"""The head transpose of attention: [batch, seq, heads, dim] -> [batch, heads, seq, dim],
materialised contiguously (bfloat16). Pure data movement."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.permute(0, 2, 1, 3).contiguous()


def get_inputs(batch: int = 3, seq: int = 77, heads: int = 5, dim: int = 64):
    return [torch.randn(batch, seq, heads, dim).to(torch.bfloat16)]


def get_init_inputs(batch: int = 3, seq: int = 77, heads: int = 5, dim: int = 64):
    return []
