# 2a + b through an nn.Linear held as an attribute, where libraries = false: the layer's call
# `self.mix(...)` names no library op, so a check of call names alone lets it through. Static: a
# call through an attribute built from a library layer is a `library` fact (B1). On cuda the probe
# also sees the library's GEMM kernels.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.mix = nn.Linear(2, 1, bias=False)
        with torch.no_grad():
            self.mix.weight.copy_(torch.tensor([[2.0, 1.0]]))

    def forward(self, a, b):
        return self.mix(torch.stack([a, b], dim=-1)).squeeze(-1)
