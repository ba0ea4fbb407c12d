import torch
from concurrent.futures import ThreadPoolExecutor
class ModelNew(torch.nn.Module):
    """Hands the work to a pool thread that outlives every call."""
    def __init__(self):
        super().__init__()
        self.pool = ThreadPoolExecutor(max_workers=1)
    def forward(self, a, b):
        return self.pool.submit(lambda: 2.0 * a + b).result()
