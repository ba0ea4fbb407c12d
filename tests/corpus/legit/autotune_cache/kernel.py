import torch
class ModelNew(torch.nn.Module):
    """Picks a chunk size per shape on first sight and caches the choice, not the results."""
    def __init__(self):
        super().__init__()
        self.best_chunk = {}
    def _run(self, a, b, chunk):
        out = torch.empty_like(a)
        for start in range(0, a.numel(), chunk):
            stop = min(start + chunk, a.numel())
            torch.add(b[start:stop], a[start:stop], alpha=2.0, out=out[start:stop])
        return out
    def forward(self, a, b):
        key = tuple(a.shape)
        if key not in self.best_chunk:
            self.best_chunk[key] = max(256, a.numel() // 4)
        return self._run(a, b, self.best_chunk[key])
