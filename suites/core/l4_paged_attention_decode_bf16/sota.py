"""Library baseline: the cache blocks gathered through the block table (as the reference does, in
bfloat16 rather than float32), then F.scaled_dot_product_attention with the sequence lengths as a
boolean mask and enable_gqa=True from torch 2.5 (before, the key / value heads are expanded).
torch < 2.0 has no SDPA: there this runs the reference."""
import torch
import torch.nn.functional as F

from reference import Model


class ModelSota(Model):
    def forward(self, q, k_cache, v_cache, block_tables, seq_lens):
        if not hasattr(F, "scaled_dot_product_attention"):
            return super().forward(q, k_cache, v_cache, block_tables, seq_lens)
        batch, q_heads, dim = q.shape
        kv_heads = k_cache.shape[2]
        tables = block_tables.long()
        k = k_cache[tables].reshape(batch, -1, kv_heads, dim).transpose(1, 2)               # [b, hkv, t, d]
        v = v_cache[tables].reshape(batch, -1, kv_heads, dim).transpose(1, 2)
        valid = torch.arange(k.shape[2], device=q.device)[None, :] < seq_lens.long()[:, None]
        mask = valid[:, None, None, :]
        if torch.__version__ >= "2.5":
            out = F.scaled_dot_product_attention(q[:, :, None], k, v, attn_mask=mask, enable_gqa=True)
        else:
            group = q_heads // kv_heads
            k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
            out = F.scaled_dot_product_attention(q[:, :, None], k, v, attn_mask=mask)
        return out[:, :, 0]
