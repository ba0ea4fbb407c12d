"""Linear + bias + GELU (tanh) in bfloat16: the first half of a GPT-style MLP, one GEMM with an
activation epilogue."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """gelu_tanh(x @ fc.weight^T + fc.bias), bfloat16 parameters fc.weight [out, in], fc.bias [out]."""

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features).to(torch.bfloat16)
        with torch.no_grad():  # a bias of real size, so that dropping it fails
            self.fc.bias.copy_((0.5 * torch.randn(out_features)).to(torch.bfloat16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.fc(x), approximate="tanh")


def get_inputs(tokens: int = 333, in_features: int = 256, out_features: int = 97):
    return [torch.randn(tokens, in_features).to(torch.bfloat16)]


def get_init_inputs(tokens: int = 333, in_features: int = 256, out_features: int = 97):
    return [in_features, out_features]
