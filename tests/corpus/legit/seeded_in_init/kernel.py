import torch
class ModelNew(torch.nn.Module):
    """Seeds its own construction (weights), never a call."""
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.register_buffer("unused", torch.randn(4))
    def forward(self, a, b):
        return 2.0 * a + b
