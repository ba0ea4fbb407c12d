"""Times a model through the C runtime's arb_time: the loop and the clock live in C, Python only
provides the forward call, rotating input sets by call index."""
import ctypes
import os

import torch

from . import runtime as rt


class _Call:
    """The callback state: input sets, and the first exception a forward raised."""

    def __init__(self, model, input_sets):
        self.model = model
        self.input_sets = input_sets
        self.error = None

    def __call__(self, _user, call_idx):
        try:
            inputs = self.input_sets[call_idx % len(self.input_sets)]
            self.model(*inputs)
            return 0
        except BaseException as exc:  # noqa: B902 - SystemExit from a forward must not pass as success
            self.error = exc
            return 1


def _config(device, timing):
    config = rt.TimingConfig()
    config.device = rt.DEVICE_CODES[device]
    config.warmup_calls = int(timing.get("warmup_calls", 3))
    config.min_samples = int(timing.get("min_samples", 10))
    config.max_samples = int(timing.get("max_samples", 1000))
    config.min_time_s = float(timing.get("min_time_s", 0.2))
    config.max_time_s = float(timing.get("max_time_s", 2.0))
    config.target_rel_noise = float(timing.get("target_rel_noise", 0.01))
    config.l2_flush_bytes = int(timing.get("l2_flush_bytes", 0))
    # The harness stream is the one the model's work is queued on: PyTorch's current stream.
    config.stream = torch.cuda.current_stream().cuda_stream if device == "cuda" else 0
    return config


def time_model(runtime, model, input_sets, device, timing, json_path):
    """Times model over input_sets (call i uses set i % len) and writes json_path. Returns the
    arb_timing_result as a dict. A forward's exception is re-raised as is."""
    os.makedirs(os.path.dirname(os.fspath(json_path)) or ".", exist_ok=True)
    call = _Call(model, input_sets)
    callback = rt.CALL_FN(call)  # kept referenced for the whole arb_time call
    config = _config(device, timing)
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
