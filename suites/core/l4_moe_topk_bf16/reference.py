"""Mixture-of-experts layer: router top-k gating and grouped expert GEMMs (Mixtral, DeepSeek,
Qwen-MoE). Each token goes to its top_k experts by softmax probability (renormalised over the
chosen ones); each expert is a SwiGLU MLP; outputs are combined with the routing weights.

The router logits are an input (the router is a separate, tiny GEMM in every serving stack); this
keeps the expert choice exactly defined, where a router GEMM summed in another order could flip a
near-tie between two experts."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """x [t, hidden] bfloat16, logits [t, experts] float32 -> [t, hidden] bfloat16.
    gate_up [experts, 2 * inter, hidden], down [experts, hidden, inter] (bfloat16 parameters)."""

    def __init__(self, hidden: int, inter: int, experts: int, top_k: int):
        super().__init__()
        self.top_k, self.inter = top_k, inter
        self.gate_up = nn.Parameter((torch.randn(experts, 2 * inter, hidden) / hidden ** 0.5).to(torch.bfloat16))
        self.down = nn.Parameter((torch.randn(experts, hidden, inter) / inter ** 0.5).to(torch.bfloat16))

    def forward(self, x: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        probs = torch.softmax(logits, dim=-1)
        weights, chosen = torch.topk(probs, self.top_k, dim=-1)                 # [t, k]
        weights = weights / weights.sum(-1, keepdim=True)
        per_slot = torch.zeros(x.shape[0], self.top_k, x.shape[1], dtype=torch.float32, device=x.device)
        for expert in range(self.gate_up.shape[0]):
            token, slot = torch.nonzero(chosen == expert, as_tuple=True)
            if token.numel() == 0:
                continue
            h = torch.matmul(x[token], self.gate_up[expert].t())
            h = F.silu(h[:, :self.inter]) * h[:, self.inter:]
            per_slot[token, slot] = torch.matmul(h, self.down[expert].t()).float()  # distinct (token, slot)
        return (per_slot * weights[:, :, None]).sum(1).to(x.dtype)


def get_inputs(tokens: int = 77, hidden: int = 128, inter: int = 96, experts: int = 8, top_k: int = 2):
    x = (2.0 * torch.randn(tokens, hidden)).to(torch.bfloat16)
    logits = 2.0 * torch.randn(tokens, experts)
    return [x, logits]


def get_init_inputs(tokens: int = 77, hidden: int = 128, inter: int = 96, experts: int = 8, top_k: int = 2):
    return [hidden, inter, experts, top_k]
