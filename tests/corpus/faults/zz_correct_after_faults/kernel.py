import torch


class ModelNew(torch.nn.Module):
    """Runs after every fault above: the campaign must go on normally."""

    def forward(self, a, b):
        return torch.add(b, a, alpha=2.0)
