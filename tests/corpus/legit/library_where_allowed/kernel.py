import torch
class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        return torch.addmm(torch.ones(1, dtype=a.dtype, device=a.device), a, b)
