"""Conv2d 3x3 + BatchNorm2d (inference, running statistics) + ReLU: the unit of every ResNet,
foldable into one convolution with a per-channel epilogue."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """relu(bn(conv(x))) with conv [c_out, c_in, 3, 3] (no bias) and bn's weight, bias,
    running_mean and running_var set away from the identity; eval mode."""

    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(c_out, eps=1e-5)
        with torch.no_grad():
            self.bn.weight.copy_(1.0 + 0.2 * torch.randn(c_out))
            self.bn.bias.copy_(0.2 * torch.randn(c_out))
            self.bn.running_mean.copy_(0.1 * torch.randn(c_out))
            self.bn.running_var.copy_(0.5 + torch.rand(c_out))
        self.eval()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.bn(self.conv(x)))


def get_inputs(batch: int = 2, c_in: int = 13, c_out: int = 24, size: int = 31):
    return [torch.randn(batch, c_in, size, size)]


def get_init_inputs(batch: int = 2, c_in: int = 13, c_out: int = 24, size: int = 31):
    return [c_in, c_out]
