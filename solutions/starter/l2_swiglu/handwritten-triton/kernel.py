"""Handwritten SwiGLU in Triton: a 2-D grid (row, column block), each program loading its slice of
a and b from the two halves of the row and storing a * sigmoid(a) * b. CUDA only."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _swiglu(x_ptr, y_ptr, hidden, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < hidden
    a = tl.load(x_ptr + row * 2 * hidden + cols, mask=mask, other=0.0)
    b = tl.load(x_ptr + row * 2 * hidden + hidden + cols, mask=mask, other=0.0)
    y = a / (1.0 + tl.exp(-a)) * b
    tl.store(y_ptr + row * hidden + cols, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert x.is_cuda and x.dtype == torch.float32 and x.dim() == 2 and x.shape[1] % 2 == 0
        x = x.contiguous()
        rows, hidden = x.shape[0], x.shape[1] // 2
        y = torch.empty((rows, hidden), dtype=x.dtype, device=x.device)
        if y.numel() == 0:
            return y
        block = min(triton.next_power_of_2(hidden), 1024)
        _swiglu[(rows, triton.cdiv(hidden, block))](x, y, hidden, BLOCK=block, num_warps=4)
        return y
