"""LayerNorm over the hidden dimension, bfloat16 activations, float32 statistics (nn.LayerNorm in
a bfloat16 model)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """nn.LayerNorm(hidden, eps=1e-5) with bfloat16 parameters norm.weight and norm.bias."""

    def __init__(self, hidden: int):
        super().__init__()
        self.norm = nn.LayerNorm(hidden, eps=1e-5)
        with torch.no_grad():  # away from the identity: a kernel that drops the affine fails
            self.norm.weight.copy_(1.0 + 0.1 * torch.randn(hidden))
            self.norm.bias.copy_(0.1 * torch.randn(hidden))
        self.norm.to(torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


def get_inputs(rows: int = 1000, hidden: int = 333):
    return [(0.5 + 2.0 * torch.randn(rows, hidden)).to(torch.bfloat16)]


def get_init_inputs(rows: int = 1000, hidden: int = 333):
    return [hidden]
