import torch


class ModelNew(torch.nn.Module):
    """A workspace kept on the module and worked on in place; the answer goes to a fresh tensor.
    Neither the inputs nor an earlier output are touched."""

    def __init__(self):
        super().__init__()
        self.work = None

    def forward(self, a, b):
        if self.work is None or self.work.shape != a.shape:
            self.work = torch.empty_like(a)
        torch.add(a, a, out=self.work)
        self.work.add_(b)
        return self.work.clone()
