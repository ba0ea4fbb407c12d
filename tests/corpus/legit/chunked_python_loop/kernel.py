import torch
class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        parts = [2.0 * x + y for x, y in zip(a.split(500), b.split(500))]
        return torch.cat(parts)
