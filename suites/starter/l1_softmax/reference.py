"""Row softmax over the last dimension of a 2-D float32 tensor."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """y[r, :] = softmax(x[r, :])."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


def get_inputs(rows: int = 1000, cols: int = 333):
    # Logits with standard deviation 4: rows are peaked (the largest probability of a 4096-wide row
    # is typically around 0.3), so the output is far from uniform, and exp(x) without subtracting
    # the row maximum overflows float32 once [stress] scales the inputs by 64.
    return [4.0 * torch.randn(rows, cols)]


def get_init_inputs(rows: int = 1000, cols: int = 333):
    return []
