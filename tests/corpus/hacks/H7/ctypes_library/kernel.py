import ctypes
import torch
_blob = ctypes.CDLL("libm.so.6")  # stands in for an opaque shared object shipped without sources
class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        return 2.0 * a + b
