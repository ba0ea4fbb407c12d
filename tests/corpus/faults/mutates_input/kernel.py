import torch


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        b.mul_(1.0).add_(0.0)
        a.mul_(2.0)
        return a + b
