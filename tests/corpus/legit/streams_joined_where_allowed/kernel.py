import torch
class ModelNew(torch.nn.Module):
    """A side stream, joined before returning, where the problem allows extra streams."""
    def forward(self, a, b):
        if a.is_cuda:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                out = a @ b + 1.0
            torch.cuda.current_stream().wait_stream(side)
            return out
        return a @ b + 1.0
