"""Gate-up projection + SwiGLU (Llama MLP's first half): one GEMM producing [gate | up], then
silu(gate) * up. A fused kernel never writes the 2 x intermediate tensor."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """h = x @ gate_up^T (gate_up [2 * inter, hidden], bfloat16); silu(h[:, :inter]) * h[:, inter:]."""

    def __init__(self, hidden: int, inter: int):
        super().__init__()
        self.gate_up = nn.Parameter((torch.randn(2 * inter, hidden) / hidden ** 0.5).to(torch.bfloat16))
        self.inter = inter

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.matmul(x, self.gate_up.t())
        return F.silu(h[:, :self.inter]) * h[:, self.inter:]


def get_inputs(tokens: int = 333, hidden: int = 256, inter: int = 173):
    return [(2.0 * torch.randn(tokens, hidden)).to(torch.bfloat16)]


def get_init_inputs(tokens: int = 333, hidden: int = 256, inter: int = 173):
    return [hidden, inter]
