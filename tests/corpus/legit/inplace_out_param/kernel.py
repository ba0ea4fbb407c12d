import torch
class ModelNew(torch.nn.Module):
    """Writes into its own output with out= and in-place adds: declared outputs, no input touched."""
    def forward(self, a, b):
        out = torch.empty_like(a)
        torch.mul(a, 2.0, out=out)
        return out.add_(b)
