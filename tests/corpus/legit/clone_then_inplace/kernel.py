import torch
class ModelNew(torch.nn.Module):
    """Clones an input and works in place on the clone: no aliasing, no mutation."""
    def forward(self, a, b):
        return a.clone().mul_(2.0).add_(b)
