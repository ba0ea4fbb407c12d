"""LayerNorm then Linear (a pre-norm block's first projection), bfloat16: the norm can be
applied while the GEMM loads its A tile."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """fc(norm(x)); norm = LayerNorm(in) and fc = Linear(in, out) in bfloat16."""

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.norm = nn.LayerNorm(in_features)
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.1 * torch.randn(in_features))
            self.norm.bias.copy_(0.1 * torch.randn(in_features))
        self.fc = nn.Linear(in_features, out_features)
        self.to(torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.norm(x))


def get_inputs(tokens: int = 333, in_features: int = 256, out_features: int = 97):
    return [(1.0 + 3.0 * torch.randn(tokens, in_features)).to(torch.bfloat16)]


def get_init_inputs(tokens: int = 333, in_features: int = 256, out_features: int = 97):
    return [in_features, out_features]
