# A GEMM where libraries = false, its op named only at run time: getattr(torch, "m" + "m") hides
# torch.mm from a name check, as a table of op names or a decoded string would. Static: an op of
# torch looked up by a computed name is B1 where the problem's rules restrict ops (libraries = false
# or a forbid list). On cuda the probe also sees the library's own kernels.
import torch

_OP = "m" + "m"


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        weights = torch.tensor([[2.0], [1.0]], dtype=a.dtype, device=a.device)
        stacked = torch.stack([a.reshape(-1), b.reshape(-1)], dim=1)
        return getattr(torch, _OP)(stacked, weights).reshape(a.shape)
