import torch
class ModelNew(torch.nn.Module):
    """Replays a CUDA graph where the problem allows graphs."""
    def __init__(self):
        super().__init__()
        self.graph = None
    def forward(self, a, b):
        if not a.is_cuda:
            return torch.matmul(a, b) + 1.0
        if self.graph is None:
            self.a, self.b = a.clone(), b.clone()
            # Warm up on a side stream before capturing (cuBLAS sets itself up outside the capture),
            # as torch.cuda.graphs asks; the side stream is joined both ways.
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                torch.matmul(self.a, self.b)
            torch.cuda.current_stream().wait_stream(side)
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):
                self.out = torch.matmul(self.a, self.b) + 1.0
        self.a.copy_(a)
        self.b.copy_(b)
        self.graph.replay()
        return self.out.clone()
