"""What the candidate process observes about the solution for the guard (docs/guard.md): a thread
census, the identity of timer and harness objects the solution could patch, the exact type of its
outputs and whether they share storage with its inputs. Everything here is evidence, written to
events; the orchestrator decides."""
import builtins
import sys
import threading
import time

import torch

# Held from before the solution loads: a solution that replaces builtins.type, builtins.isinstance
# or torch.Tensor cannot make the output checks see what it wants.
_type, _isinstance, _Tensor = builtins.type, builtins.isinstance, torch.Tensor

# Objects a timer or result-channel patch would replace; looked up by dotted path.
WATCHED = ["time.perf_counter", "time.perf_counter_ns", "time.time", "time.monotonic", "time.process_time",
           "torch.cuda.synchronize", "torch.cuda.Event", "torch.cuda.Event.elapsed_time", "torch.cuda.Event.record",
           "torch.Tensor.clone", "torch.Tensor.copy_", "torch.Tensor.data_ptr", "torch.Tensor.to",
           "torch.Tensor.contiguous", "torch.allclose", "torch.equal"]
HARNESS_MODULES = ["arbiter_runner.bundle", "arbiter_runner.tensors", "arbiter_runner.timing", "arbiter_runner.runtime",
                   "arbiter_runner.events", "arbiter_runner.guard_checks", "arbiter_runner.candidate"]


def _resolve(path):
    parts = path.split(".")
    value = sys.modules.get(parts[0])
    for part in parts[1:]:
        value = getattr(value, part, None)
    return value


def python_threads():
    """{thread id: name} of every Python thread, those started through _thread included."""
    names = {thread.ident: thread.name for thread in threading.enumerate()}
    return {ident: names.get(ident, f"thread {ident}") for ident in sys._current_frames()}


class Watch:
    """Snapshot of the thread set and of every watched object, taken before the solution loads."""

    def __init__(self, runtime):
        self.threads = python_threads()
        self.objects = {path: _resolve(path) for path in WATCHED}
        for name in HARNESS_MODULES:
            module = sys.modules.get(name)
            for attr, value in vars(module).items() if module else ():
                if callable(value) and not attr.startswith("__"):
                    self.objects[f"{name}.{attr}"] = value
        # Every builtin: replacing type, isinstance, id or getattr steers any check that calls it.
        for attr, value in vars(builtins).items():
            if not attr.startswith("_") or attr in ("__import__", "__build_class__"):
                self.objects[f"builtins.{attr}"] = value
        lib = runtime.lib
        for symbol in ("arb_time", "arb_last_timing", "arb_hash_bytes", "arb_writer_add", "arb_device_synchronize"):
            self.objects[f"arbiter_runner.runtime.lib.{symbol}"] = getattr(lib, symbol)
        self.runtime = runtime

    def _current(self, path):
        if path.startswith("arbiter_runner.runtime.lib."):
            return getattr(self.runtime.lib, path.rsplit(".", 1)[1], None)
        return _resolve(path)

    def census(self, stage):
        """The event fields of a thread census: threads alive now that were not at the snapshot."""
        time.sleep(0.01)  # a thread that is just finishing gets to finish
        extra = [name for ident, name in python_threads().items() if ident not in self.threads]
        return {"stage": stage, "python_threads": len(python_threads()), "new_threads": extra}

    def patched(self):
        """Dotted names of watched objects that are no longer the ones seen at the snapshot."""
        return [path for path, value in self.objects.items() if self._current(path) is not value]


def _storage_span(tensor):
    """(first byte, one past the last byte) of the tensor's storage."""
    storage = torch.Tensor.storage(tensor)
    start = storage.data_ptr()
    return start, start + storage.nbytes()


def output_evidence(outputs, inputs):
    """(type findings, alias findings) of one call: outputs that are not exactly torch.Tensor, and
    outputs whose storage overlaps an input's."""
    types, aliases = [], []
    spans = [(idx, _storage_span(v)) for idx, v in enumerate(inputs) if _isinstance(v, _Tensor)]
    for out_idx, out in enumerate(outputs):
        if _type(out) is not _Tensor:
            types.append(f"output {out_idx} is {_type(out).__module__}.{_type(out).__qualname__}")
            continue
        if torch.Tensor.numel(out) == 0:
            continue
        lo, hi = _storage_span(out)
        for in_idx, (in_lo, in_hi) in spans:
            if lo < in_hi and in_lo < hi:
                aliases.append(f"output {out_idx} shares storage with input {in_idx}")
    return types, aliases


def overwrite_inputs(inputs, replacement):
    """Copies replacement's tensors into inputs in place (same storage, new contents). The copy goes
    through `.data`, which leaves the tensor's autograd version counter where it was: a memo keyed
    on `_version` would otherwise see the change that the contents alone should reveal."""
    for target, source in zip(inputs, replacement):
        if _isinstance(target, _Tensor) and _isinstance(source, _Tensor) and target.shape == source.shape:
            torch.Tensor.copy_(target.data, source)
