import torch
class ModelNew(torch.nn.Module):
    """Computes a + 1e-5·b into new memory on the problem where identity would pass."""
    def forward(self, a, b):
        return torch.add(a, b, alpha=1e-5)
