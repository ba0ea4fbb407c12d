# A BLAS call where libraries = false, through an op outside the usual GEMM names: torch.inner of
# the input sets stacked as an [n, 2] matrix with the weights (2, 1) is a matrix-vector product
# (cuBLAS gemv on cuda). Static: torch.inner is a library-backed op (B1), like torch.dot,
# torch.linalg.multi_dot and torch's private GEMM entry points (_scaled_mm, _int_mm,
# _weight_int4pack_mm, _grouped_mm).
import torch


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        weights = torch.tensor([2.0, 1.0], dtype=a.dtype, device=a.device)
        stacked = torch.stack([a.reshape(-1), b.reshape(-1)], dim=1)
        return torch.inner(stacked, weights).reshape(a.shape)
