import subprocess
import torch
subprocess.run(["true"])
class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        return 2.0 * a + b
