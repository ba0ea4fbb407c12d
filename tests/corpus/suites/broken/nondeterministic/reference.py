"""Nondeterministic: noise from the operating system, outside torch's seeded generator."""
import os

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        noise = torch.frombuffer(bytearray(os.urandom(4 * x.numel())), dtype=torch.int32).reshape(x.shape).to(x.device)
        return x + noise.float() * 1e-9


def get_inputs(rows: int = 64, cols: int = 33):
    return [torch.randn(rows, cols)]


def get_init_inputs(rows: int = 64, cols: int = 33):
    return []
