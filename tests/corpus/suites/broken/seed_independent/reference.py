"""Seed-independent: get_inputs draws from its own fixed generator, so every seed gives the same case."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.tanh(x) * 2.0


def get_inputs(rows: int = 64, cols: int = 33):
    return [torch.randn(rows, cols, generator=torch.Generator().manual_seed(0))]


def get_init_inputs(rows: int = 64, cols: int = 33):
    return []
