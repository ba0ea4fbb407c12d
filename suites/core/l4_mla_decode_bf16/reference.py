"""Multi-head latent attention (DeepSeek-V2/V3), decode step, in the weight-absorbed form that
FlashMLA and vLLM run: every head attends over one shared compressed KV cache of 576 values per
token (512 latent + 64 rotary), and the values are the cache's first 512 entries."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """q [b, h, 576] bfloat16 (absorbed nope part | rope part), kv [b, s, 576] bfloat16,
    lengths [b] int64 (1..s; cache positions >= length are padding) -> out [b, h, 512] bfloat16.
    scores = q . kv * (128 + 64)^-0.5 in float32, softmax over valid positions, out = p @ kv[..., :512]."""

    def __init__(self, latent: int, rope: int):
        super().__init__()
        self.latent = latent
        self.scale = (128 + rope) ** -0.5  # DeepSeek's qk_nope_head_dim + qk_rope_head_dim

    def forward(self, q: torch.Tensor, kv: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        scores = torch.matmul(q.float(), kv.float().transpose(1, 2)) * self.scale          # [b, h, s]
        padding = torch.arange(kv.shape[1], device=kv.device)[None, :] >= lengths[:, None]  # [b, s]
        probs = torch.softmax(scores.masked_fill(padding[:, None, :], float("-inf")), dim=-1)
        return torch.matmul(probs, kv[..., :self.latent].float()).to(q.dtype)


def get_inputs(batch: int = 3, heads: int = 16, seq: int = 133, latent: int = 512, rope: int = 64):
    q = torch.randn(batch, heads, latent + rope).to(torch.bfloat16)
    kv = torch.randn(batch, seq, latent + rope).to(torch.bfloat16)
    lengths = torch.randint(1, seq + 1, (batch,), dtype=torch.int64)
    lengths[0] = seq
    return [q, kv, lengths]


def get_init_inputs(batch: int = 3, heads: int = 16, seq: int = 133, latent: int = 512, rope: int = 64):
    return [latent, rope]
