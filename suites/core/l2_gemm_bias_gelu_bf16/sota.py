"""Library baseline: torch._addmm_activation(use_gelu=True), the GEMM with bias and tanh-GELU in
cuBLASLt's epilogue (GELU_BIAS) on CUDA; addmm then gelu(approximate="tanh") elsewhere."""
import torch

from reference import Model


class ModelSota(Model):
    def forward(self, x):
        if not hasattr(torch, "_addmm_activation"):
            return super().forward(x)
        return torch._addmm_activation(self.fc.bias, x, self.fc.weight.t(), use_gelu=True)
