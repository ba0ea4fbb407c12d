"""The Llama MLP block in bfloat16: down(silu(gate(x)) * up(x)), three GEMMs and a gate."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Parameters gate.weight, up.weight [inter, hidden], down.weight [hidden, inter] (no biases)."""

    def __init__(self, hidden: int, inter: int):
        super().__init__()
        self.gate = nn.Linear(hidden, inter, bias=False)
        self.up = nn.Linear(hidden, inter, bias=False)
        self.down = nn.Linear(inter, hidden, bias=False)
        self.to(torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.silu(self.gate(x)) * self.up(x))


def get_inputs(tokens: int = 333, hidden: int = 256, inter: int = 688):
    return [(4.0 * torch.randn(tokens, hidden)).to(torch.bfloat16)]


def get_init_inputs(tokens: int = 333, hidden: int = 256, inter: int = 688):
    return [hidden, inter]
