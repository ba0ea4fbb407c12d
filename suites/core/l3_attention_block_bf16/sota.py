"""Library baseline: the same projections (cuBLAS, bias fused by addmm) around
F.scaled_dot_product_attention(is_causal=True) (flash attention on CUDA: the scores are never
written to memory). torch < 2.0 has no SDPA: there this runs the reference's attention."""
import torch.nn.functional as F

from reference import Model


class ModelSota(Model):
    def forward(self, x):
        if not hasattr(F, "scaled_dot_product_attention"):
            return super().forward(x)
        batch, seq, hidden = x.shape
        qkv = self.qkv(x).view(batch, seq, 3, self.heads, hidden // self.heads).permute(2, 0, 3, 1, 4)
        attn = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], is_causal=True)
        return self.out(attn.transpose(1, 2).reshape(batch, seq, hidden))
