import torch
import torch.nn as nn


class Model(nn.Module):
    """Simple model that applies a scaled tanh: y = scale * tanh(x)."""

    def __init__(self, scale: float):
        super(Model, self).__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.scale * torch.tanh(x)


batch_size = 16
dim = 1023
scale = 2.5


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [scale]
