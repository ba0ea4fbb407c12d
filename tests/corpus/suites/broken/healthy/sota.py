"""The healthy reference's op in place, after one tanh: suite check times it as the sota baseline."""
import torch

from reference import Model


class ModelSota(Model):
    def forward(self, x):
        return torch.tanh(x).mul_(2.0).add_(x.sum(-1, keepdim=True))
