import torch
class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        return a.view(-1)[:]
