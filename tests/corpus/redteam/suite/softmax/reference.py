import torch
import torch.nn as nn


class Model(nn.Module):
    """y[r, :] = softmax(x[r, :])"""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=-1)


def get_inputs(rows=256, cols=4096):
    return [4.0 * torch.randn(rows, cols)]


def get_init_inputs(rows=256, cols=4096):
    return []
