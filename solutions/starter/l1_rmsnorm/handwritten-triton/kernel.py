"""Handwritten RMSNorm in Triton: one program per row, a chunked sum of squares, then a chunked
pass that scales by 1/rms and the weight. CUDA only."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rmsnorm_rows(x_ptr, w_ptr, y_ptr, hidden, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * hidden
    y_row = y_ptr + row * hidden
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, hidden, BLOCK):
        mask = start + offs < hidden
        x = tl.load(x_row + start + offs, mask=mask, other=0.0)
        acc += x * x
    inv_rms = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / hidden + eps)
    for start in range(0, hidden, BLOCK):
        mask = start + offs < hidden
        x = tl.load(x_row + start + offs, mask=mask, other=0.0)
        w = tl.load(w_ptr + start + offs, mask=mask, other=0.0)
        tl.store(y_row + start + offs, x * inv_rms * w, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert x.is_cuda and x.dtype == torch.float32 and x.dim() == 2
        x = x.contiguous()
        w = self.weight.contiguous()
        rows, hidden = x.shape
        y = torch.empty_like(x)
        if x.numel() == 0:
            return y
        block = min(triton.next_power_of_2(hidden), 4096)
        num_warps = 4 if block <= 1024 else 8
        _rmsnorm_rows[(rows,)](x, w, y, hidden, self.eps, BLOCK=block, num_warps=num_warps)
        return y
