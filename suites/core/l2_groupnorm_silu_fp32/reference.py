"""GroupNorm + SiLU (float32, NCHW): the normalisation unit of diffusion U-Nets and VAEs."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """silu(group_norm(x, groups, norm.weight, norm.bias, eps=1e-6))."""

    def __init__(self, channels: int, groups: int):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels, eps=1e-6)
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.2 * torch.randn(channels))
            self.norm.bias.copy_(0.2 * torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(self.norm(x))


def get_inputs(batch: int = 2, channels: int = 96, groups: int = 32, size: int = 17):
    return [0.3 + 2.0 * torch.randn(batch, channels, size, size)]


def get_init_inputs(batch: int = 2, channels: int = 96, groups: int = 32, size: int = 17):
    return [channels, groups]
