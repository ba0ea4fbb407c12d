"""Linear layer followed by ReLU: y = relu(x @ W^T + b), with W and b owned by the model."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """relu(nn.Linear(in_features, out_features)(x)). The weights are parameters named
    linear.weight [out_features, in_features] and linear.bias [out_features]."""

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(x))


def get_inputs(batch: int = 1000, in_features: int = 333, out_features: int = 129):
    return [torch.randn(batch, in_features)]


def get_init_inputs(batch: int = 1000, in_features: int = 333, out_features: int = 129):
    return [in_features, out_features]
