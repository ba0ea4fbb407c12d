"""Scatter of rows into a cache: out = cache with rows slot[i] replaced by new[i] (writing new
tokens' keys into a KV cache). Slots are distinct, so the result is well defined."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = cache.index_copy(0, slots, new); the cache input itself is not modified."""

    def __init__(self):
        super().__init__()

    def forward(self, cache: torch.Tensor, slots: torch.Tensor, new: torch.Tensor) -> torch.Tensor:
        return cache.index_copy(0, slots, new)


def get_inputs(slots: int = 4099, tokens: int = 333, width: int = 192):
    cache = torch.randn(slots, width).to(torch.bfloat16)
    index = torch.randperm(slots)[:tokens].to(torch.int64)
    new = (5.0 + torch.randn(tokens, width)).to(torch.bfloat16)
    return [cache, index, new]


def get_init_inputs(slots: int = 4099, tokens: int = 333, width: int = 192):
    return []
