"""The four workloads of the timing fidelity benchmark, each a KernelBench-style module with fixed
seeds: build(name, device, quick) gives the model and its input sets."""
import torch

# name → (what it stresses, full size, quick size)
WORKLOADS = {
    "tiny": "launch-bound: a + b over 4096 float32 elements (one tiny kernel)",
    "softmax": "memory-bound: softmax over the last dim of a 4096×4096 float32 matrix",
    "gemm": "compute-bound: 8192×8192×8192 bfloat16 matrix product a @ b",
    "multi": "several kernels: relu(x @ w) * s + b, 4096×4096 float16",
}

WEIGHTS_SEED = 42
INPUT_SEEDS = (123, 456, 789)  # three rotated input sets, as arbiter times a candidate


class Add(torch.nn.Module):
    def forward(self, a, b):
        return a + b


class Softmax(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)


class Matmul(torch.nn.Module):
    def forward(self, a, b):
        return a @ b


class ReluScaleShift(torch.nn.Module):
    def __init__(self, n, dtype):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(n, n, dtype=torch.float32).to(dtype) / n ** 0.5)
        self.s = torch.nn.Parameter(torch.randn(n, dtype=torch.float32).to(dtype))
        self.b = torch.nn.Parameter(torch.randn(n, dtype=torch.float32).to(dtype))

    def forward(self, x):
        return torch.relu(x @ self.w) * self.s + self.b


def _sizes(quick):
    if quick:
        return {"tiny": 4096, "softmax": 256, "gemm": 128, "multi": 128}
    return {"tiny": 4096, "softmax": 4096, "gemm": 8192, "multi": 4096}


def _half(device):
    # Debian's CPU torch has no float16 matrix product; the quick CPU path keeps the shape of the work.
    return torch.float16 if device == "cuda" else torch.float32


def _inputs(name, n, device):
    if name == "tiny":
        return [torch.randn(n), torch.randn(n)]
    if name == "softmax":
        return [torch.randn(n, n)]
    if name == "gemm":
        return [torch.randn(n, n).to(torch.bfloat16), torch.randn(n, n).to(torch.bfloat16)]
    return [torch.randn(n, n).to(_half(device))]


def build(name, device, quick=False):
    """(model, input_sets, description): the model on device in eval mode, one input set per seed."""
    if name not in WORKLOADS:
        raise ValueError(f"unknown workload {name!r}; known: {', '.join(WORKLOADS)}")
    n = _sizes(quick)[name]
    torch.manual_seed(WEIGHTS_SEED)
    model = {"tiny": Add, "softmax": Softmax, "gemm": Matmul}.get(name)
    model = model() if model else ReluScaleShift(n, _half(device))
    model = model.to(device).eval()
    input_sets = []
    for seed in INPUT_SEEDS:
        torch.manual_seed(seed)
        input_sets.append([t.to(device) for t in _inputs(name, n, device)])
    return model, input_sets, {"name": name, "what": WORKLOADS[name], "size": n, "quick": quick}
