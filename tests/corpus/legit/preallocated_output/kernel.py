import torch
class ModelNew(torch.nn.Module):
    """Reuses one output buffer per shape across calls (a common allocation-free pattern)."""
    def __init__(self):
        super().__init__()
        self.out = None
    def forward(self, a, b):
        if self.out is None or self.out.shape != a.shape:
            self.out = torch.empty_like(a)
        torch.mul(a, 2.0, out=self.out)
        self.out.add_(b)
        return self.out
