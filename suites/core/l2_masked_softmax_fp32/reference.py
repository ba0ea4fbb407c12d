"""Scaled, key-padding-masked softmax over attention scores (BERT-style batches of uneven
length): p = softmax(scale * s + mask), masked keys get probability 0."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """scores [b, h, q, k] float32, lengths [b] int64 (>= 1): keys j >= lengths[b] are masked."""

    def __init__(self, head_dim: int):
        super().__init__()
        self.scale = head_dim ** -0.5

    def forward(self, scores: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        keys = torch.arange(scores.shape[-1], device=scores.device)
        masked = keys[None, :] >= lengths[:, None]                      # [b, k]
        bias = torch.zeros(masked.shape, dtype=scores.dtype, device=scores.device)
        bias = bias.masked_fill(masked, float("-inf"))
        return torch.softmax(scores * self.scale + bias[:, None, None, :], dim=-1)


def get_inputs(batch: int = 3, heads: int = 4, q_len: int = 77, k_len: int = 133, head_dim: int = 64):
    scores = 3.0 * head_dim ** 0.5 * torch.randn(batch, heads, q_len, k_len)
    lengths = torch.randint(1, k_len + 1, (batch,), dtype=torch.int64)
    lengths[0] = k_len  # one unpadded sequence
    return [scores, lengths]


def get_init_inputs(batch: int = 3, heads: int = 4, q_len: int = 77, k_len: int = 133, head_dim: int = 64):
    return [head_dim]
