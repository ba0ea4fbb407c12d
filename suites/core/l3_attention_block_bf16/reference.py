"""A causal multi-head self-attention block in bfloat16: fused QKV projection, attention with
float32 softmax, output projection."""
import torch
import torch.nn as nn


def _causal_attention(q, k, v):
    """softmax(q k^T / sqrt(d) + causal) v, scores and softmax in float32, output in q's dtype.
    q [b, h, s, d]; k, v [b, h, s, d] (already expanded for grouped heads)."""
    seq = q.shape[-2]
    scores = torch.matmul(q.float(), k.float().transpose(-1, -2)) * q.shape[-1] ** -0.5
    future = torch.ones(seq, seq, dtype=torch.bool, device=q.device).triu(1)
    probs = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return torch.matmul(probs.to(v.dtype), v)


class Model(nn.Module):
    """qkv.weight [3 * hidden, hidden], qkv.bias [3 * hidden], out.weight [hidden, hidden]."""

    def __init__(self, hidden: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden, bias=True)
        self.out = nn.Linear(hidden, hidden, bias=False)
        self.to(torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, hidden = x.shape
        qkv = self.qkv(x).view(batch, seq, 3, self.heads, hidden // self.heads).permute(2, 0, 3, 1, 4)
        attn = _causal_attention(qkv[0], qkv[1], qkv[2])
        return self.out(attn.transpose(1, 2).reshape(batch, seq, hidden))


def get_inputs(batch: int = 2, seq: int = 77, hidden: int = 192, heads: int = 3):
    return [(2.0 * torch.randn(batch, seq, hidden)).to(torch.bfloat16)]


def get_init_inputs(batch: int = 2, seq: int = 77, hidden: int = 192, heads: int = 3):
    return [hidden, heads]
