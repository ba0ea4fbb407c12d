"""Grouped-query causal attention (prefill), bfloat16: q_heads query heads share kv_heads key /
value heads (Llama 3, Mistral, Qwen). The reference materialises the scores; a flash-style
kernel never does."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """q [b, hq, s, d], k, v [b, hkv, s, d] bfloat16 -> [b, hq, s, d] bfloat16; query head i reads
    kv head i // (hq / hkv); float32 softmax of q k^T / sqrt(d) under a causal mask."""

    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        group = q.shape[1] // k.shape[1]
        k = k.repeat_interleave(group, dim=1)
        v = v.repeat_interleave(group, dim=1)
        seq = q.shape[-2]
        scores = torch.matmul(q.float(), k.float().transpose(-1, -2)) * q.shape[-1] ** -0.5
        future = torch.ones(seq, seq, dtype=torch.bool, device=q.device).triu(1)
        probs = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        return torch.matmul(probs, v.float()).to(q.dtype)


def get_inputs(batch: int = 2, q_heads: int = 6, kv_heads: int = 2, seq: int = 77, dim: int = 64):
    return [torch.randn(batch, q_heads, seq, dim).to(torch.bfloat16),
            (1.5 * torch.randn(batch, kv_heads, seq, dim)).to(torch.bfloat16),
            torch.randn(batch, kv_heads, seq, dim).to(torch.bfloat16)]


def get_init_inputs(batch: int = 2, q_heads: int = 6, kv_heads: int = 2, seq: int = 77, dim: int = 64):
    return []
