"""Paged-attention decode (vLLM's PagedAttention): one new query token per sequence attends to
its KV cache, which lives in fixed-size blocks scattered through a shared pool and is addressed
through a per-sequence block table. Grouped-query heads, bfloat16 cache."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """q [b, hq, d]; k_cache, v_cache [blocks, block_size, hkv, d]; block_tables [b, max_blocks]
    int32; seq_lens [b] int32 (>= 1) -> out [b, hq, d] bfloat16. Token t of sequence i lives at
    block block_tables[i, t // block_size], slot t % block_size; positions >= seq_lens[i] are
    ignored whatever the table holds there."""

    def __init__(self):
        super().__init__()

    def forward(self, q, k_cache, v_cache, block_tables, seq_lens):
        batch, q_heads, dim = q.shape
        block_size, kv_heads = k_cache.shape[1], k_cache.shape[2]
        tables = block_tables.long()
        k = k_cache[tables].reshape(batch, -1, kv_heads, dim).float()       # [b, max_len, hkv, d]
        v = v_cache[tables].reshape(batch, -1, kv_heads, dim).float()
        group = q_heads // kv_heads
        qg = q.float().reshape(batch, kv_heads, group, dim)
        scores = torch.einsum("bhgd,bthd->bhgt", qg, k) * dim ** -0.5
        padding = torch.arange(k.shape[1], device=q.device)[None, :] >= seq_lens.long()[:, None]
        probs = torch.softmax(scores.masked_fill(padding[:, None, None, :], float("-inf")), dim=-1)
        out = torch.einsum("bhgt,bthd->bhgd", probs, v)
        return out.reshape(batch, q_heads, dim).to(q.dtype)


def get_inputs(batch: int = 3, q_heads: int = 8, kv_heads: int = 2, dim: int = 64, block_size: int = 16,
               max_len: int = 133):
    max_blocks = (max_len + block_size - 1) // block_size
    pool = batch * max_blocks + 7                                    # some blocks belong to nobody
    q = torch.randn(batch, q_heads, dim).to(torch.bfloat16)
    k_cache = (1.5 * torch.randn(pool, block_size, kv_heads, dim)).to(torch.bfloat16)
    v_cache = torch.randn(pool, block_size, kv_heads, dim).to(torch.bfloat16)
    block_tables = torch.randperm(pool)[:batch * max_blocks].reshape(batch, max_blocks).to(torch.int32)
    seq_lens = torch.randint(1, max_len + 1, (batch,), dtype=torch.int32)
    seq_lens[0] = max_len
    return [q, k_cache, v_cache, block_tables, seq_lens]


def get_init_inputs(batch: int = 3, q_heads: int = 8, kv_heads: int = 2, dim: int = 64, block_size: int = 16,
                    max_len: int = 133):
    return []
