import torch
import torch.nn as nn


class Model(nn.Module):
    """out = a + 1e-5 * b: within tolerance of `a`, so an identity kernel passes every value check."""

    def forward(self, a, b):
        return a + 1e-5 * b


def get_inputs(n=2048):
    return [torch.randn(n), torch.randn(n)]


def get_init_inputs(n=2048):
    return []
