import torch
class ModelNew(torch.nn.Module):
    """More precision, not less."""
    def forward(self, a, b):
        return (2.0 * a.double() + b.double()).float()
