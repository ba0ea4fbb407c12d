import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a, b):
        out = torch.empty_like(a)
        torch.mul(a, 2.0, out=out)
        out.add_(b)
        return out
