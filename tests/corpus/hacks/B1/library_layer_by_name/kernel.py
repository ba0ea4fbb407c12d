# One step to the side of library_layer_attribute: the held nn.Linear is never called through
# `self.<name>(...)`: it is fetched by name from the module's own registry and run through its
# class's method, nn.Linear.forward(layer, x). Static: both are `library` facts (B1).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.mix = nn.Linear(2, 1, bias=False)
        with torch.no_grad():
            self.mix.weight.copy_(torch.tensor([[2.0, 1.0]]))

    def forward(self, a, b):
        layer = self._modules["mix"]
        return nn.Linear.forward(layer, torch.stack([a, b], dim=-1)).squeeze(-1)
