"""A Llama-style decoder layer in bfloat16: RMSNorm, grouped-query causal self-attention with
rotary embeddings, residual; RMSNorm, SwiGLU MLP, residual."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def _causal_attention(q, k, v):
    """softmax(q k^T / sqrt(d) + causal) v, scores and softmax in float32, output in q's dtype.
    q [b, h, s, d]; k, v [b, h, s, d] (already expanded for grouped heads)."""
    seq = q.shape[-2]
    scores = torch.matmul(q.float(), k.float().transpose(-1, -2)) * q.shape[-1] ** -0.5
    future = torch.ones(seq, seq, dtype=torch.bool, device=q.device).triu(1)
    probs = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return torch.matmul(probs.to(v.dtype), v)


def _rms_norm(x, weight, eps=1e-5):
    xf = x.float()
    return weight * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)


def _rope(x, cos, sin):
    half = x.shape[-1] // 2
    xf = x.float()
    rotated = torch.cat((-xf[..., half:], xf[..., :half]), dim=-1)
    return (xf * cos + rotated * sin).to(x.dtype)


class Model(nn.Module):
    """Parameters: attn_norm, mlp_norm [hidden]; q [heads*d, hidden], k, v [kv_heads*d, hidden],
    o [hidden, heads*d]; gate, up [inter, hidden], down [hidden, inter]. Positions are 0..seq-1."""

    def __init__(self, hidden: int, heads: int, kv_heads: int, inter: int):
        super().__init__()
        self.heads, self.kv_heads, self.dim = heads, kv_heads, hidden // heads
        self.attn_norm = nn.Parameter(1.0 + 0.1 * torch.randn(hidden))
        self.mlp_norm = nn.Parameter(1.0 + 0.1 * torch.randn(hidden))
        self.q = nn.Linear(hidden, heads * self.dim, bias=False)
        self.k = nn.Linear(hidden, kv_heads * self.dim, bias=False)
        self.v = nn.Linear(hidden, kv_heads * self.dim, bias=False)
        self.o = nn.Linear(heads * self.dim, hidden, bias=False)
        self.gate = nn.Linear(hidden, inter, bias=False)
        self.up = nn.Linear(hidden, inter, bias=False)
        self.down = nn.Linear(inter, hidden, bias=False)
        self.register_buffer("inv_freq", 500000.0 ** (-torch.arange(0, self.dim, 2, dtype=torch.float32) / self.dim))
        self.to(torch.bfloat16)
        self.inv_freq = self.inv_freq.float()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, _ = x.shape
        angles = torch.arange(seq, device=x.device, dtype=torch.float32)[:, None] * self.inv_freq.float()[None, :]
        emb = torch.cat((angles, angles), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        h = _rms_norm(x, self.attn_norm)
        q = _rope(self.q(h).view(batch, seq, self.heads, self.dim).transpose(1, 2), cos, sin)
        k = _rope(self.k(h).view(batch, seq, self.kv_heads, self.dim).transpose(1, 2), cos, sin)
        v = self.v(h).view(batch, seq, self.kv_heads, self.dim).transpose(1, 2)
        group = self.heads // self.kv_heads
        attn = _causal_attention(q, k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1))
        x = x + self.o(attn.transpose(1, 2).reshape(batch, seq, self.heads * self.dim))
        h = _rms_norm(x, self.mlp_norm)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


def get_inputs(batch: int = 2, seq: int = 77, hidden: int = 256, heads: int = 4, kv_heads: int = 2, inter: int = 688):
    return [torch.randn(batch, seq, hidden).to(torch.bfloat16)]


def get_init_inputs(batch: int = 2, seq: int = 77, hidden: int = 256, heads: int = 4, kv_heads: int = 2, inter: int = 688):
    return [hidden, heads, kv_heads, inter]
