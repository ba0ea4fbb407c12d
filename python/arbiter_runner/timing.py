"""Times a model through the C runtime's arb_time: the loop and the clock live in C, Python only
provides the forward call, rotating input sets by call index."""
import ctypes
import os
import random

import torch

from . import runtime as rt

# Drawn from the OS, created before any solution is imported: which timed calls are captured is
# decided after each call returns, so a call cannot know whether its output will be checked.
_CHOOSER = random.SystemRandom()


_CAPTURE_FIELDS = ("probability", "limit", "kept", "last")


class Capture:
    """Outputs of timed calls kept for the orchestrator to verify: a random few, cloned right after
    their call returned, and the last call's. `kept` holds (call_idx, [tensors])."""

    def __init__(self, probability=0.25, limit=6):
        self.probability = probability
        self.limit = limit
        self.kept = []
        self.last = None

    def after(self, call_idx, out):
        self.last = (call_idx, out)
        if len(self.kept) < self.limit and _CHOOSER.random() < self.probability:
            self.kept.append((call_idx, cloned_outputs(out)))

    def tampered(self):
        """Dotted names of what was changed on this capture while the timed calls ran: attributes it
        never sets (an `after` stored on the instance), or a class swapped."""
        names = [f"arbiter_runner.timing.Capture.{attr} (instance)" for attr in vars(self) if attr not in _CAPTURE_FIELDS]
        if type(self) is not Capture:
            names.append("arbiter_runner.timing.Capture (class)")
        return names

    def finish(self):
        """Every capture, the last call's included (cloned now that no call can overwrite it)."""
        if self.last is not None and all(idx != self.last[0] for idx, _ in self.kept):
            self.kept.append((self.last[0], cloned_outputs(self.last[1])))
        return self.kept


def cloned_outputs(out):
    values = out if isinstance(out, (tuple, list)) else [out]
    return [torch.Tensor.clone(v) if isinstance(v, torch.Tensor) else v for v in values]


class _Call:
    """The callback state: input sets, the last call's output and the first exception a forward
    raised."""

    def __init__(self, model, input_sets):
        self.model = model
        self.input_sets = input_sets
        self.last = None
        self.error = None

    def __call__(self, _user, call_idx):
        try:
            inputs = self.input_sets[call_idx % len(self.input_sets)]
            self.last = self.model(*inputs)
            return 0
        except BaseException as exc:  # noqa: B902 - SystemExit from a forward must not pass as success
            self.error = exc
            return 1


def _after_call(call, keep):
    """The after-call hook: hands the last call's output to `keep` (a Capture's `after`, bound once
    before timing starts, so that replacing the Capture's attributes from a forward changes nothing)
    outside the timed span, so a clone never adds to a sample."""

    def after_call(_user, call_idx):
        try:
            out, call.last = call.last, None
            if keep is not None:
                keep(call_idx, out)
            return 0
        except BaseException as exc:  # noqa: B902
            call.error = exc
            return 1

    return after_call


def _config(runtime, device, timing, group, after_call):
    """The runtime's defaults for device (arb_timing_defaults), each key of timing over them: the
    runner has no defaults of its own. A key that is no timing setting is named, not ignored."""
    config = runtime.timing_defaults(device)
    for key, value in timing.items():
        if key not in rt.TIMING_KEYS:
            raise ValueError(f"timing: unknown key {key!r} (expected one of {', '.join(rt.TIMING_KEYS)})")
        setattr(config, key, type(getattr(config, key))(value))
    config.stream = harness_stream(device)
    config.probe_group = group
    if after_call is not None:
        config.after_call = after_call
    return config


def harness_stream(device):
    """The stream the model's work is queued on (PyTorch's current stream), as an integer."""
    return torch.cuda.current_stream().cuda_stream if device == "cuda" else 0


def time_model(runtime, model, input_sets, device, timing, json_path, capture=None, group=-1):
    """Times model over input_sets (call i uses set i % len) and writes json_path. Returns the
    arb_timing_result as a dict. A forward's exception is re-raised as is. With a Capture, some
    outputs of timed calls are kept for verification. group names the probe's windows (the shape)."""
    os.makedirs(os.path.dirname(os.fspath(json_path)) or ".", exist_ok=True)
    call = _Call(model, input_sets)
    callback = rt.CALL_FN(call)  # both kept referenced for the whole arb_time call
    after_call = rt.CALL_FN(_after_call(call, capture.after if capture is not None else None))
    config = _config(runtime, device, timing, group, after_call)
    if device == "cuda":
        torch.cuda.synchronize()  # also makes the device's context current on this thread
    result = rt.TimingResult()
    with torch.no_grad():
        rc = runtime.lib.arb_time(ctypes.byref(config), callback, None, os.fspath(json_path).encode(),
                                  ctypes.byref(result))
    if rc == rt.ARB_E_CALLBACK and call.error is not None:
        raise call.error
    runtime.check(rc, "arb_time")
    return {"samples": result.samples, "median_ms": result.median_ms, "stop": rt.STOP_NAMES.get(result.stop)}
