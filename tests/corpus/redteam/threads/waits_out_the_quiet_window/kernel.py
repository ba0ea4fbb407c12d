# One step to the side of the quiet window: the orchestrator watches the evaluation's CPU for 5 ms
# after a batch's answer, so this worker sleeps 20 ms after each call before it works out the
# answer of the set the rotation hands over next (keyed by its data pointer); forward returns that
# answer when it is ready. Nothing runs in the window; the work lands between later calls.
# What should catch it: the CPU account of the outside batch (every thread's CPU counts, whenever
# it ran), the outside clock on sets nobody saw, the work check on a fresh call.
import torch

_threading = __import__("thr" + "eading")
_time = __import__("ti" + "me")


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.seen = []
        self.ready = {}
        self.wake = _threading.Event()
        self.next = None
        _threading.Thread(target=self._work, daemon=True).start()

    def _work(self):
        while True:
            self.wake.wait()
            self.wake.clear()
            _time.sleep(0.02)
            x = self.next
            e = (x - x.amax(dim=-1, keepdim=True)).exp()
            self.ready[x.data_ptr()] = e / e.sum(dim=-1, keepdim=True)

    def forward(self, x):
        key = x.data_ptr()
        out = self.ready.pop(key, None)
        if out is None:
            e = (x - x.amax(dim=-1, keepdim=True)).exp()
            out = e / e.sum(dim=-1, keepdim=True)
        if all(key != s.data_ptr() for s in self.seen):
            self.seen.append(x)
        idx = next(i for i, s in enumerate(self.seen) if s.data_ptr() == key)
        self.next = self.seen[(idx + 1) % len(self.seen)]
        self.wake.set()
        return out
