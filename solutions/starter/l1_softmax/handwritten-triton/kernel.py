"""Handwritten row softmax in Triton: one program per row, an online (max, sum) pass over the row in
BLOCK-wide chunks, then a pass that writes exp(x - max) / sum. CUDA only."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _softmax_rows(x_ptr, y_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * cols
    y_row = y_ptr + row * cols
    offs = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, cols, BLOCK):
        mask = start + offs < cols
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf"))
        m_new = tl.maximum(m, x)
        # Lanes that have seen only masked elements keep m = -inf; guard their exp(-inf - -inf).
        alive = m_new > float("-inf")
        scale = tl.where(alive, tl.exp(m - m_new), 0.0)
        term = tl.where(mask & alive, tl.exp(x - m_new), 0.0)
        s = s * scale + term
        m = m_new
    row_max = tl.max(m, axis=0)
    row_sum = tl.sum(tl.where(m > float("-inf"), s * tl.exp(m - row_max), 0.0), axis=0)
    inv = 1.0 / row_sum
    for start in range(0, cols, BLOCK):
        mask = start + offs < cols
        x = tl.load(x_row + start + offs, mask=mask, other=0.0)
        tl.store(y_row + start + offs, tl.exp(x - row_max) * inv, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert x.is_cuda and x.dtype == torch.float32 and x.dim() == 2
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        if x.numel() == 0:
            return y
        block = min(triton.next_power_of_2(cols), 4096)
        num_warps = 4 if block <= 1024 else 8 if block <= 2048 else 16
        _softmax_rows[(rows,)](x, y, cols, BLOCK=block, num_warps=num_warps)
        return y
