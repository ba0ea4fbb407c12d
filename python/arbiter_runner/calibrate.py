"""Calibrate mode (`arbiter calibrate`): measures the machine's peaks for fraction-of-peak scoring,
through the runtime's own timing loop (timing.time_model, the loop candidates are timed with).

  copy  one large device-to-device copy (1 GiB on cuda, 256 MiB on cpu); bytes moved = read + write
  gemm  a square matrix product per dtype (8192³ on cuda, 512³ on cpu, where
        Debian's torch multiplies float32 at a few GFLOP/s); 2·n³ floating-point
        operations. float32 runs with TF32 off (TF32 is a math mode, not a dtype); float8_e4m3fn
        goes through torch._scaled_mm (fast accumulation, bfloat16 out) where torch and the
        device support it, else it is skipped with the reason.

Rates come from the median sample. One `calibration` event per measurement:
  {"event": "calibration", "kind": "copy"|"gemm", "dtype", "size", "work", "rate", "unit",
   "median_ms", "samples", "rel_noise", "p10_ms", "p90_ms", "stop", "timing": {...}}
or, when a measurement cannot run, {"event": "calibration", "kind", "dtype", "skipped": "<why>"}.

Job keys: device, runtime_lib, events_file, timing_dir, timing (the stopping rule: the
orchestrator's calibration settings, src/pipeline/calibrate.cpp); optional copy_bytes, gemm_n, dtypes."""
import contextlib
import json
import os

import torch

from . import tensors, timing

DEFAULTS = {
    "cuda": {"copy_bytes": 1 << 30, "gemm_n": 8192, "dtypes": ["float32", "float16", "bfloat16", "float8_e4m3fn"]},
    "cpu": {"copy_bytes": 256 << 20, "gemm_n": 512, "dtypes": ["float32", "bfloat16"]},
}

# A peak is a best case: a few warm-up calls, then samples until the median is within 1% (at most
# a second per measurement, so a whole calibration takes seconds on a GPU). On cuda the job adds the
# pacing candidates are timed with (warm-up by time, a rest after each call): the peak is measured
# in the GPU state the times it divides are.
NOT_A_DTYPE = {"tf32": "not a dtype: TF32 is a math mode; float32 is measured with it off"}


class Skipped(Exception):
    """A measurement this machine or this torch cannot make; the message says why."""


def _first_line(exc):
    text = f"{type(exc).__name__}: {exc}"
    return text.splitlines()[0][:300] if text else type(exc).__name__


def _timed(runtime, job, name, fn, inputs):
    """Times fn over one input set; the runtime's JSON without its lists of samples (those stay in
    timing/<name>.json)."""
    path = os.path.join(job["timing_dir"], f"{name}.json")
    timing.time_model(runtime, fn, [inputs], job["device"], job["timing"], path)
    with open(path, encoding="utf-8") as file:
        result = json.load(file)
    return {key: value for key, value in result.items() if not isinstance(value, list)}


def _copy(src, dst):
    return dst.copy_(src)


def _matmul(a, b):
    return torch.matmul(a, b)


@contextlib.contextmanager
def _exact_float32(device):
    """float32 GEMMs without TF32, whatever the process's default was."""
    if device != "cuda":
        yield
        return
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved


def _fp8_gemm(n, device):
    """(fn, inputs) of an n³ float8_e4m3fn product through torch._scaled_mm; raises Skipped."""
    if device != "cuda":
        raise Skipped("float8 GEMMs are measured on cuda only")
    if not hasattr(torch, "float8_e4m3fn") or not hasattr(torch, "_scaled_mm"):
        raise Skipped(f"torch {torch.__version__} has no float8_e4m3fn or torch._scaled_mm")
    a = torch.randn(n, n, device=device).to(torch.float8_e4m3fn)
    b = torch.randn(n, n, device=device).to(torch.float8_e4m3fn).t()  # _scaled_mm wants mat2 column-major
    scale = torch.ones((), device=device, dtype=torch.float32)

    def scaled_mm(a, b):
        out = torch._scaled_mm(a, b, scale_a=scale, scale_b=scale, out_dtype=torch.bfloat16, use_fast_accum=True)
        return out[0] if isinstance(out, tuple) else out  # torch < 2.4 returned (out, amax)

    try:
        scaled_mm(a, b)
        tensors.synchronize(device)
    except Exception as exc:  # noqa: BLE001 - an unsupported device or build is a reason, not a failure
        raise Skipped(f"torch._scaled_mm fails here: {_first_line(exc)}") from exc
    return scaled_mm, (a, b)


def _gemm_inputs(dtype_name, n, device):
    if dtype_name == "float8_e4m3fn":
        return _fp8_gemm(n, device)
    dtype = getattr(torch, dtype_name, None)
    if not isinstance(dtype, torch.dtype):
        raise Skipped(f"torch {torch.__version__} has no dtype {dtype_name}")
    return _matmul, (torch.randn(n, n, device=device).to(dtype), torch.randn(n, n, device=device).to(dtype))


def _measurement(kind, dtype, size, work, unit, result):
    median_s = result["median_ms"] / 1e3
    return {"kind": kind, "dtype": dtype, "size": size, "work": work, "unit": unit,
            "rate": work / median_s if median_s > 0 else None, "median_ms": result["median_ms"],
            "samples": result["samples"], "rel_noise": result.get("rel_noise"), "p10_ms": result.get("p10_ms"),
            "p90_ms": result.get("p90_ms"), "stop": result.get("stop"), "timing": result}


def measure_copy(runtime, job, nbytes):
    device = job["device"]
    src = torch.ones(nbytes, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    result = _timed(runtime, job, "copy", _copy, (src, dst))
    return _measurement("copy", "uint8", nbytes, 2 * nbytes, "bytes_per_s", result)


def measure_gemm(runtime, job, dtype_name, n):
    device = job["device"]
    fn, inputs = _gemm_inputs(dtype_name, n, device)
    with _exact_float32(device):
        result = _timed(runtime, job, f"gemm_{dtype_name}", fn, inputs)
    return _measurement("gemm", dtype_name, n, 2 * n ** 3, "flops_per_s", result)


def _emit(events, device, kind, dtype, measure):
    """Runs one measurement; whatever keeps it from running is recorded as its reason to skip."""
    try:
        events.emit("calibration", **measure())
    except Skipped as exc:
        events.emit("calibration", kind=kind, dtype=dtype, skipped=str(exc))
    except Exception as exc:  # noqa: BLE001 - e.g. out of memory: the other measurements still run
        events.emit("calibration", kind=kind, dtype=dtype, skipped=_first_line(exc))
    finally:
        if device == "cuda":
            torch.cuda.empty_cache()  # the next measurement's matrices need the room


def run(job, runtime, events):
    device = job["device"]
    defaults = DEFAULTS[device]
    copy_bytes = int(job.get("copy_bytes", defaults["copy_bytes"]))
    n = int(job.get("gemm_n", defaults["gemm_n"]))
    _emit(events, device, "copy", "uint8", lambda: measure_copy(runtime, job, copy_bytes))
    for dtype_name in job.get("dtypes", defaults["dtypes"]):
        _emit(events, device, "gemm", dtype_name, lambda name=dtype_name: measure_gemm(runtime, job, name, n))
    if device == "cuda":
        for name, why in NOT_A_DTYPE.items():
            events.emit("calibration", kind="gemm", dtype=name, skipped=why)
