import torch
import torch.nn as nn


class Model(nn.Module):
    """out = relu(a)"""

    def forward(self, a):
        return torch.relu(a)


def get_inputs(n=1024):
    return [torch.randn(n)]


def get_init_inputs(n=1024):
    return []
