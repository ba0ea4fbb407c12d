"""Causal attention probabilities: P = softmax(Q K^T / sqrt(d) + causal mask), bfloat16 Q and K,
float32 P (what an attention-visualisation or a non-flash training path materialises)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """q, k [b, h, s, d] bfloat16 -> P [b, h, s, s] float32, P[i, j] = 0 for j > i."""

    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        seq, dim = q.shape[-2], q.shape[-1]
        scores = torch.matmul(q, k.transpose(-1, -2)).float() * dim ** -0.5
        future = torch.ones(seq, seq, dtype=torch.bool, device=q.device).triu(1)
        return torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)


def get_inputs(batch: int = 2, heads: int = 3, seq: int = 77, dim: int = 64):
    return [torch.randn(batch, heads, seq, dim).to(torch.bfloat16), (1.5 * torch.randn(batch, heads, seq, dim)).to(torch.bfloat16)]


def get_init_inputs(batch: int = 2, heads: int = 3, seq: int = 77, dim: int = 64):
    return []
