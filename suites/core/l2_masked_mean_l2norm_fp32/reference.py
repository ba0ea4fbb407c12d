"""Sentence-embedding pooling: mean of the hidden states over the unpadded tokens, then L2
normalisation (the head of every embedding model)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """hidden [b, s, d] float32, lengths [b] int64 (>= 1) -> unit vectors [b, d]."""

    def __init__(self):
        super().__init__()

    def forward(self, hidden: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        keep = (torch.arange(hidden.shape[1], device=hidden.device)[None, :] < lengths[:, None]).to(hidden.dtype)
        pooled = (hidden * keep[:, :, None]).sum(1) / lengths[:, None].to(hidden.dtype)
        return F.normalize(pooled, p=2.0, dim=-1)


def get_inputs(batch: int = 5, seq: int = 77, dim: int = 333):
    hidden = torch.randn(batch, seq, dim) + torch.randn(1, 1, dim)  # a shared direction, as real encoders have
    lengths = torch.randint(1, seq + 1, (batch,), dtype=torch.int64)
    return [hidden, lengths]


def get_init_inputs(batch: int = 5, seq: int = 77, dim: int = 333):
    return []
