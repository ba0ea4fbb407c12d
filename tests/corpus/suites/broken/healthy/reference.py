"""Healthy: tanh plus the row sum that depends on the seed and is far from zero."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.tanh(x) * 2.0 + x.sum(-1, keepdim=True)


def get_inputs(rows: int = 64, cols: int = 33):
    return [torch.randn(rows, cols)]


def get_init_inputs(rows: int = 64, cols: int = 33):
    return []
