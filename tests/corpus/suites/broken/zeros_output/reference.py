"""Degenerate: relu(-|x|) is zero everywhere, so an all-zeros answer would pass."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(-x.abs())


def get_inputs(rows: int = 64, cols: int = 33):
    return [torch.randn(rows, cols)]


def get_init_inputs(rows: int = 64, cols: int = 33):
    return []
