# S5: a memo keyed on the input tensor objects (not pointers, shapes, contents or versions),
# trusted only from the fourth call on the same objects. The correctness pass calls each case's
# tensors three times (the call, the mutation re-run on the same tensors overwritten in place, the
# determinism re-run with the contents copied back), while the timing loop rotates a fixed list of
# input-set tensors with unchanged contents, so from the fourth call on the memo is always right:
# every captured timed output matches its input set. The work check catches it: the timed calls
# cost a fraction of the mutation re-run on the same shape.
import torch


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.seen = {}

    def forward(self, a, b):
        entry = self.seen.get((id(a), id(b)))
        if entry is not None and entry[0] is a and entry[1] is b:
            entry[2] += 1
            if entry[2] > 3 and entry[3] is not None:
                return entry[3]
        else:
            entry = self.seen[(id(a), id(b))] = [a, b, 1, None]
        out = 2.0 * a + b
        if entry[2] == 3:
            entry[3] = out
        return out
