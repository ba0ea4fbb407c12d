import torch


class ModelNew(torch.nn.Module):
    """Constants worked out once: the factor in __init__ (from a series, as a tuned constant might
    be) and a tensor of it per shape on the first call of that shape, keyed on the shape only."""

    def __init__(self):
        super().__init__()
        self.factor = float(sum(0.5 ** k for k in range(60)))  # 2.0, to the last bit
        self.scales = {}

    def forward(self, a, b):
        scale = self.scales.get(tuple(a.shape))
        if scale is None:
            scale = self.scales[tuple(a.shape)] = torch.full_like(a, self.factor)
        return scale * a + b
