"""Rotary position embedding applied to queries and keys together (GPT-NeoX / Llama layout:
rotate_half over the two halves of the head dimension), from integer positions."""
import torch
import torch.nn as nn


def _rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Model(nn.Module):
    """q [t, hq, d], k [t, hk, d] bfloat16, positions [t] int64 -> (q', k') bfloat16. cos and sin
    are computed in float32 from inv_freq = base^(-2i/d) (a buffer, base 500000 as in Llama 3)."""

    def __init__(self, dim: int):
        super().__init__()
        self.register_buffer("inv_freq", 500000.0 ** (-torch.arange(0, dim, 2, dtype=torch.float32) / dim))

    def forward(self, q: torch.Tensor, k: torch.Tensor, positions: torch.Tensor):
        angles = positions.float()[:, None] * self.inv_freq[None, :]       # [t, d/2]
        emb = torch.cat((angles, angles), dim=-1)[:, None, :]               # [t, 1, d]
        cos, sin = emb.cos(), emb.sin()
        qf, kf = q.float(), k.float()
        q_out = qf * cos + _rotate_half(qf) * sin
        k_out = kf * cos + _rotate_half(kf) * sin
        return q_out.to(q.dtype), k_out.to(k.dtype)


def get_inputs(tokens: int = 333, q_heads: int = 6, kv_heads: int = 2, dim: int = 64):
    q = torch.randn(tokens, q_heads, dim).to(torch.bfloat16)
    k = torch.randn(tokens, kv_heads, dim).to(torch.bfloat16)
    positions = torch.randint(0, 8192, (tokens,), dtype=torch.int64)   # decode-like, not 0..t-1
    return [q, k, positions]


def get_init_inputs(tokens: int = 333, q_heads: int = 6, kv_heads: int = 2, dim: int = 64):
    return [dim]
