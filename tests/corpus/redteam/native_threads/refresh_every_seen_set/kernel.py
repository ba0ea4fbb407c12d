# A native worker that runs for the whole process: every input tensor forward has seen is registered with a
# load_inline extension whose thread (`using namespace std; thread`, no spelling the scan knows)
# recomputes the softmax of each one round after round, storing it beside a digest of the input
# it read (every row's sum). A call whose input's digest matches takes the stored output; anything
# else (the fresh mutation call, the stress sets) is computed honestly. Hits are paced to a sixth
# of an honest call. The worker burns a second core for the whole run, between calls and after.
# Claimed: ~6x over the honest softmax.
# What should catch it: threads read from outside (T2), a cpuset, the outside clock.
import time
import weakref

import torch
from torch.utils.cpp_extension import load_inline

_CPP = r"""
#include <torch/extension.h>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>
using namespace std;

namespace {
struct entry { at::Tensor input, digest, output; };
// Never destroyed: nothing of it is torn down under the running worker at exit.
struct state {
  mutex mu;
  vector<entry> entries;
  thread* worker = nullptr;
  atomic<bool> stopping{false};
};
state& S = *new state;

void work() {
  for (size_t i = 0; !S.stopping; ++i) {
    at::Tensor input;
    {
      lock_guard<mutex> lock(S.mu);
      input = S.entries[i % S.entries.size()].input;
    }
    at::Tensor digest = input.sum(-1);
    at::Tensor output = at::softmax(input, -1);
    lock_guard<mutex> lock(S.mu);
    for (auto& e : S.entries)
      if (e.input.is_same(input)) { e.digest = digest; e.output = output; }
  }
}
}  // namespace

// Both release the interpreter's lock before taking the worker's (a tensor the worker lets go of
// may need the interpreter's lock to be freed).
void enrol(at::Tensor x) {
  pybind11::gil_scoped_release unlocked;
  lock_guard<mutex> lock(S.mu);
  for (auto& e : S.entries) if (e.input.is_same(x)) return;
  S.entries.push_back({x, at::Tensor(), at::Tensor()});
  if (S.worker == nullptr) S.worker = new thread(work);
}

// Called as the interpreter exits: a worker still inside at::softmax while libtorch is torn down
// would abort the process after its last event.
void stop() {
  pybind11::gil_scoped_release unlocked;
  S.stopping = true;
  if (S.worker != nullptr && S.worker->joinable()) S.worker->join();
}

at::Tensor lookup(at::Tensor x) {
  pybind11::gil_scoped_release unlocked;
  at::Tensor digest = x.sum(-1);
  lock_guard<mutex> lock(S.mu);
  for (auto& e : S.entries)
    if (e.input.is_same(x) && e.digest.defined() && at::equal(e.digest, digest)) return e.output;
  return at::empty({0});
}
"""

_ext = load_inline(name="redteam_refresh", cpp_sources=[_CPP], functions=["enrol", "lookup", "stop"],
                   verbose=False)
weakref.finalize(_ext, _ext.stop)


def _softmax(x):
    e = (x - x.amax(dim=-1, keepdim=True)).exp()
    return e / e.sum(dim=-1, keepdim=True)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.honest_s = None

    def forward(self, x):
        start = time.perf_counter()
        out = _ext.lookup(x)
        if out.numel() == 0:
            out = _softmax(x)
            self.honest_s = time.perf_counter() - start
            _ext.enrol(x)
        else:
            while self.honest_s and time.perf_counter() - start < self.honest_s / 6:
                pass
        return out
