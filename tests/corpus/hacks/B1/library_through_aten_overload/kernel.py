# A GEMM where libraries = false, reached through spellings a name check of torch.matmul misses: the
# aten overload (torch.ops.aten.mm.default) and operator.matmul, on the input sets stacked as a
# matrix. Static: the aten op is read as torch.mm and operator.matmul as the @ operator (B1). On
# cuda the probe sees the library's own kernels (cuBLAS's nvjet/xmma names) whatever the spelling.
import operator

import torch


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        weights = torch.tensor([[2.0], [1.0]], dtype=a.dtype, device=a.device)
        stacked = torch.stack([a.reshape(-1), b.reshape(-1)], dim=1)
        half = stacked.shape[0] // 2
        top = torch.ops.aten.mm.default(stacked[:half], weights)
        bottom = operator.matmul(stacked[half:], weights)
        return torch.cat([top, bottom]).reshape(a.shape)
