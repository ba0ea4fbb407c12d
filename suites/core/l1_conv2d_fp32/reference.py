"""2-D convolution, NCHW float32, 3x3 kernel, stride and padding as a ResNet stage uses them."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """nn.Conv2d(c_in, c_out, 3, stride, padding=1, bias=True); weights are parameters
    (conv.weight [c_out, c_in, 3, 3], conv.bias [c_out])."""

    def __init__(self, c_in: int, c_out: int, stride: int):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs(batch: int = 2, c_in: int = 13, c_out: int = 24, size: int = 31, stride: int = 1):
    return [torch.randn(batch, c_in, size, size)]


def get_init_inputs(batch: int = 2, c_in: int = 13, c_out: int = 24, size: int = 31, stride: int = 1):
    return [c_in, c_out, stride]
