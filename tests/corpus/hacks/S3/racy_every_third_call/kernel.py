import torch
class ModelNew(torch.nn.Module):
    """Stands in for a race or out-of-bounds read: every third call one element is garbage."""
    def __init__(self):
        super().__init__()
        self.calls = 0
    def forward(self, a, b):
        self.calls += 1
        out = 2.0 * a + b
        if self.calls % 3 == 0:
            out[out.numel() // 2] += 1000.0
        return out
