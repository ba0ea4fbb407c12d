"""A small image classifier in float32 (CIFAR-style ResNet stem and two stages): conv-BN-ReLU
blocks, a strided downsample, a residual connection, global average pooling and a linear head."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def _conv_bn(c_in, c_out, stride):
    conv = nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=False)
    bn = nn.BatchNorm2d(c_out)
    with torch.no_grad():
        bn.weight.copy_(1.0 + 0.2 * torch.randn(c_out))
        bn.bias.copy_(0.2 * torch.randn(c_out))
        bn.running_mean.copy_(0.1 * torch.randn(c_out))
        bn.running_var.copy_(0.5 + torch.rand(c_out))
    return nn.Sequential(conv, bn)


class Model(nn.Module):
    """stem (3 -> width) ; block (width, residual) ; down (width -> 2 width, stride 2) ; block
    (2 width, residual) ; avg pool ; fc (2 width -> classes). Eval mode (running statistics)."""

    def __init__(self, width: int, classes: int):
        super().__init__()
        self.stem = _conv_bn(3, width, 1)
        self.block1 = nn.ModuleList([_conv_bn(width, width, 1), _conv_bn(width, width, 1)])
        self.down = _conv_bn(width, 2 * width, 2)
        self.block2 = nn.ModuleList([_conv_bn(2 * width, 2 * width, 1), _conv_bn(2 * width, 2 * width, 1)])
        self.fc = nn.Linear(2 * width, classes)
        self.eval()

    @staticmethod
    def _residual(x, convs):
        return F.relu(x + convs[1](F.relu(convs[0](x))))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.stem(x))
        x = self._residual(x, self.block1)
        x = F.relu(self.down(x))
        x = self._residual(x, self.block2)
        return self.fc(x.mean(dim=(2, 3)))


def get_inputs(batch: int = 3, size: int = 17, width: int = 16, classes: int = 10):
    return [torch.randn(batch, 3, size, size)]


def get_init_inputs(batch: int = 3, size: int = 17, width: int = 16, classes: int = 10):
    return [width, classes]
