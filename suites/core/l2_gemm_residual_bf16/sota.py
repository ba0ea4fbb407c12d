"""Library baseline: torch.addmm(residual, x, proj^T), the residual added in the GEMM (cuBLAS's
beta = 1 on CUDA) instead of in a second pass over the output."""
import torch

from reference import Model


class ModelSota(Model):
    def forward(self, x, residual):
        return torch.addmm(residual, x, self.proj.t())
