import torch
class ModelNew(torch.nn.Module):
    """One-time preprocessing in __init__: the constant factor lives in a buffer."""
    def __init__(self):
        super().__init__()
        self.register_buffer("factor", torch.tensor(2.0))
    def forward(self, a, b):
        return self.factor * a + b
