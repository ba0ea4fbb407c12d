import torch
class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        out = 2.0 * a + b
        if out.is_cuda:
            torch.cuda.synchronize()
        return out
