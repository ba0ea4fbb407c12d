import os
import torch
with open(os.path.join(os.path.dirname(__file__), "kernel.py"), encoding="utf-8") as _file:
    _SOURCE = _file.read()
class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        return 2.0 * a + b
