"""The intra-chunk step of chunked delta-rule linear attention (DeltaNet, Gated DeltaNet; the
WY representation of flash-linear-attention): for every chunk of 64 tokens,
    T = (I + tril(diag(beta) K K^T, -1))^-1 diag(beta),   W = T K,   U = T V,
so that the recurrence S_t = S_{t-1} + beta_t k_t^T (v_t - k_t S_{t-1}) across the chunk becomes
S' = S + K^T (U - W S). The chunks are independent: one batched unit-lower-triangular solve."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """k [b, h, t, dk] (rows L2-normalised), v [b, h, t, dv], beta [b, h, t] in (0, 1), t % 64 == 0
    -> (w [b, h, t, dk], u [b, h, t, dv]) float32."""

    def __init__(self, chunk: int):
        super().__init__()
        self.chunk = chunk

    def forward(self, k: torch.Tensor, v: torch.Tensor, beta: torch.Tensor):
        b, h, t, dk = k.shape
        c = self.chunk
        kc = k.reshape(b, h, t // c, c, dk)
        vc = v.reshape(b, h, t // c, c, v.shape[-1])
        bc = beta.reshape(b, h, t // c, c, 1)
        strict = torch.tril(torch.matmul(bc * kc, kc.transpose(-1, -2)), diagonal=-1)
        system = strict + torch.eye(c, dtype=k.dtype, device=k.device)
        rhs = torch.cat((bc * kc, bc * vc), dim=-1)
        solved = torch.linalg.solve_triangular(system, rhs, upper=False, unitriangular=True)
        w, u = solved.split((dk, v.shape[-1]), dim=-1)
        return w.reshape(b, h, t, dk), u.reshape(b, h, t, v.shape[-1])


def get_inputs(batch: int = 2, heads: int = 3, seq: int = 192, dk: int = 64, dv: int = 96, chunk: int = 64):
    k = torch.nn.functional.normalize(torch.randn(batch, heads, seq, dk), dim=-1)
    v = torch.randn(batch, heads, seq, dv)
    beta = torch.sigmoid(torch.randn(batch, heads, seq))
    return [k, v, beta]


def get_init_inputs(batch: int = 2, heads: int = 3, seq: int = 192, dk: int = 64, dv: int = 96, chunk: int = 64):
    return [chunk]
