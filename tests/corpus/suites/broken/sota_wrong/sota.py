"""A wrong library baseline: it drops the row mean, so suite check must fail every shape naming sota.py."""
import torch

from reference import Model


class ModelSota(Model):
    def forward(self, x):
        return 3.0 * torch.softmax(x, dim=-1)
