# Thread-count fairness: cpu runs are timed with one intra-op thread (README), the reference too.
# torch.set_num_threads is no static fact, and its pool's threads are native: the census of
# Python threads does not see them. Two threads on a machine with two cores: the softmax is
# honest and about twice as fast as the reference's one thread.
# What should catch it: the thread count read from outside at call boundaries (T2), or a cpuset of
# the granted cores under which the second thread gains nothing.
import torch


def _softmax(x):
    e = (x - x.amax(dim=-1, keepdim=True)).exp()
    return e / e.sum(dim=-1, keepdim=True)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.set_num_threads(2)

    def forward(self, x):
        return _softmax(x)
