"""A recurrent scan: one GRU layer over a sequence (float32, batch first), returning every
step's hidden state. The time dependency is sequential; the input projections are not."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """nn.GRU(input_size, hidden, batch_first=True): gru.weight_ih_l0 [3h, in], weight_hh_l0
    [3h, h], bias_ih_l0, bias_hh_l0 [3h]; gate order r, z, n as in PyTorch. Initial state h0 is
    an input."""

    def __init__(self, input_size: int, hidden: int):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden, num_layers=1, batch_first=True)

    def forward(self, x: torch.Tensor, h0: torch.Tensor) -> torch.Tensor:
        out, _ = self.gru(x, h0)
        return out


def get_inputs(batch: int = 3, seq: int = 37, input_size: int = 40, hidden: int = 72):
    return [torch.randn(batch, seq, input_size), 0.5 * torch.randn(1, batch, hidden)]


def get_init_inputs(batch: int = 3, seq: int = 37, input_size: int = 40, hidden: int = 72):
    return [input_size, hidden]
