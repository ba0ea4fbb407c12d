"""torch.gather along the last dimension: out[r, j] = x[r, index[r, j]] (per-row lookups, as in
token-level log-prob extraction)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        return torch.gather(x, 1, index)


def get_inputs(rows: int = 1000, cols: int = 333, picks: int = 77):
    x = torch.randn(rows, cols)
    index = torch.randint(0, cols, (rows, picks), dtype=torch.int64)
    return [x, index]


def get_init_inputs(rows: int = 1000, cols: int = 333, picks: int = 77):
    return []
