import torch


class ModelNew(torch.nn.Module):
    """Two output buffers per shape, used in turn (double buffering): a cache keyed on the shape,
    never on the contents, so every call computes its answer."""

    def __init__(self):
        super().__init__()
        self.buffers = {}
        self.turn = 0

    def forward(self, a, b):
        pair = self.buffers.setdefault(tuple(a.shape), [torch.empty_like(a), torch.empty_like(a)])
        self.turn ^= 1
        out = pair[self.turn]
        torch.mul(a, 2.0, out=out)
        return out.add_(b)
