# Legal: an honest 2a + b on 1M elements, out of place, in two steps. Its timed calls cost what a
# call on unseen inputs costs, so the work check (T5) must leave it alone.
import torch


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        out = torch.mul(a, 2.0)
        out.add_(b)
        return out
