"""Top-k along the last dimension: the k largest values in descending order and their indices
(sampling, beam search, MoE routing)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """(values[r, :k], indices[r, :k] int64) = topk(x[r, :], k, sorted=True)."""

    def __init__(self, k: int):
        super().__init__()
        self.k = k

    def forward(self, x: torch.Tensor):
        values, indices = torch.topk(x, self.k, dim=-1, largest=True, sorted=True)
        return values, indices


def get_inputs(rows: int = 100, cols: int = 1000, k: int = 8):
    # float32 N(0, 1): ties have probability ~0, so the indices are well defined.
    return [torch.randn(rows, cols)]


def get_init_inputs(rows: int = 100, cols: int = 1000, k: int = 8):
    return [k]
