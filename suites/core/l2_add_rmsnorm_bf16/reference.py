"""Residual add + RMSNorm as a pre-norm decoder runs it between sub-layers (vLLM's
fused_add_rms_norm): returns the normalised hidden state and the new residual stream."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """residual' = x + residual (bfloat16); y = weight * bf16(rmsnorm_fp32(residual'))."""

    def __init__(self, hidden: int):
        super().__init__()
        self.weight = nn.Parameter((1.0 + 0.1 * torch.randn(hidden)).to(torch.bfloat16))
        self.eps = 1e-6

    def forward(self, x: torch.Tensor, residual: torch.Tensor):
        summed = x + residual
        sf = summed.float()
        normed = sf * torch.rsqrt(sf.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * normed.to(x.dtype), summed


def get_inputs(tokens: int = 1000, hidden: int = 333):
    x = torch.randn(tokens, hidden).to(torch.bfloat16)
    residual = (0.5 + 2.0 * torch.randn(tokens, hidden)).to(torch.bfloat16)
    return [x, residual]


def get_init_inputs(tokens: int = 1000, hidden: int = 333):
    return [hidden]
