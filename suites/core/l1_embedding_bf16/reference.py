"""Token embedding lookup: out[b, s, :] = table[ids[b, s], :], a bfloat16 table of LLM size."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """nn.Embedding(vocab, hidden) in bfloat16; the table is the parameter embed.weight."""

    def __init__(self, vocab: int, hidden: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden).to(torch.bfloat16)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return F.embedding(ids, self.embed.weight)


def get_inputs(batch: int = 3, seq: int = 111, vocab: int = 5003, hidden: int = 96):
    return [torch.randint(0, vocab, (batch, seq), dtype=torch.int64)]


def get_init_inputs(batch: int = 3, seq: int = 111, vocab: int = 5003, hidden: int = 96):
    return [vocab, hidden]
