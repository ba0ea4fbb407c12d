"""A correct answer to the KernelBench sample: scale * tanh(x) through tanh's exponential form."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e = torch.exp(-2.0 * x.abs())
        return self.scale * torch.sign(x) * (1.0 - e) / (1.0 + e)
