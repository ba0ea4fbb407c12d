"""Check mode (`arbiter suite check`): vets one problem's reference, shape by shape, in a process
that loads nothing else. Per shape it emits one `shape_check` event:

  deterministic   two runs from the same seeds (model rebuilt) give bitwise-identical outputs;
  seed-dependent  another input seed gives different outputs;
  finite          no NaN or infinity in the outputs;
  not constant    no output with more than one element is a single repeated value;
  not near zero   an all-zeros answer fails the problem's tolerance, and on at least
                  MIN_ZERO_MISS of the elements (an answer right on 99% of them by writing zeros
                  says nothing);
  not identity    returning the first input (same shape and dtype as the first output) fails;
  memory          peak GPU memory of one call (model, inputs and outputs included) within
                  memory_gb (cuda only; on cpu a note says it was not measured);
and records the reference's median time over a few calls (host clock on cpu, CUDA events on cuda).

Job keys: problem_file, device, shapes [{name, params}], tolerance {atol, rtol, mode}, seeds (two),
weights_seed, memory_gb, repeats, events_file."""
import statistics
import time

import torch

from . import problem, tensors
from .phases import phase

MIN_ZERO_MISS = 0.05


def _build(module, params, weights_seed, device):
    torch.manual_seed(weights_seed)
    init = problem.as_list(problem.call_with_shape(module.get_init_inputs, module, params), "get_init_inputs")
    return module.Model(*init).to(device).eval()


def _inputs(module, params, seed, device):
    torch.manual_seed(seed)
    values = problem.as_list(problem.call_with_shape(module.get_inputs, module, params), "get_inputs")
    return tensors.to_device(values, device)


def _same_bits(a, b):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.is_floating_point():  # NaN payloads compare by bits, not by value
        width = {8: torch.int64, 4: torch.int32, 2: torch.int16, 1: torch.int8}[a.element_size()]
        return torch.equal(a.contiguous().view(width), b.contiguous().view(width))
    return torch.equal(a, b)


def _passes(answer, expected, tol):
    """Whether answer would pass the judge's comparison with expected at tol (dtype, shape, values)."""
    if answer.dtype != expected.dtype or answer.shape != expected.shape:
        return False
    if tol.get("mode", "allclose") == "bitwise":
        return _same_bits(answer, expected)
    a, e = answer.double(), expected.double()
    return bool((a - e).abs().le(tol["atol"] + tol["rtol"] * e.abs()).all())


def _zero_miss(outputs, tol):
    """Fraction of all output elements where 0 misses the expected value at tol."""
    missed, total = 0, 0
    for out in outputs:
        e = out.double()
        if tol.get("mode", "allclose") == "bitwise":
            missed += int(e.ne(0).sum())
        else:
            missed += int(e.abs().gt(tol["atol"] + tol["rtol"] * e.abs()).sum())
        total += out.numel()
    return missed / total if total else 0.0


def _call(model, inputs, device):
    outputs = tensors.normalise_outputs(model(*[v.clone() if isinstance(v, torch.Tensor) else v for v in inputs]))
    tensors.synchronize(device)
    return outputs


def _median_ms(model, inputs, device, repeats):
    """Median over `repeats` calls after one warm-up, on the same inputs."""
    _call(model, inputs, device)
    times = []
    for _ in range(repeats):
        if device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            model(*inputs)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        else:
            begin = time.perf_counter()
            model(*inputs)
            times.append((time.perf_counter() - begin) * 1e3)
    return statistics.median(times)


def _content_checks(outputs, inputs, tol, failures):
    if not outputs:
        failures.append("the reference returns no tensor")
        return
    for idx, out in enumerate(outputs):
        if out.is_floating_point() and not bool(torch.isfinite(out).all()):
            failures.append(f"output {idx} is not finite (NaN or infinity)")
        if out.numel() > 1 and bool(out.eq(out.reshape(-1)[0]).all()):
            failures.append(f"output {idx} is constant ({out.reshape(-1)[0].item()!r} everywhere)")
    zeros = [torch.zeros_like(o) for o in outputs]
    if all(_passes(z, o, tol) for z, o in zip(zeros, outputs)):
        failures.append("degenerate: an all-zeros answer passes the tolerance")
    else:
        miss = _zero_miss(outputs, tol)
        if miss < MIN_ZERO_MISS:
            failures.append(f"near zero: an all-zeros answer is within tolerance on {100 * (1 - miss):.1f}% of the elements")
    first = inputs[0] if inputs and isinstance(inputs[0], torch.Tensor) else None
    if first is not None and len(outputs) == 1 and _passes(first, outputs[0], tol):
        failures.append("degenerate: returning the first input (identity) passes the tolerance")


def _specs(values):
    """dtype and shape of each tensor (None for other values): what a test harness needs to
    answer a shape with zeros of the right type."""
    return [{"dtype": str(v.dtype).replace("torch.", ""), "shape": list(v.shape)} if isinstance(v, torch.Tensor) else None
            for v in values]


def _check_shape(job, module, shape, repeats):
    device, seeds, tol = job["device"], job["seeds"], job["tolerance"]
    params = shape.get("params", {})
    failures, notes = [], []
    if device == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    model = _build(module, params, job["weights_seed"], device)
    inputs = _inputs(module, params, seeds[0], device)
    first = _call(model, inputs, device)
    peak_gb = None
    if device == "cuda":
        peak_gb = torch.cuda.max_memory_allocated() / 2 ** 30
        if peak_gb > float(job["memory_gb"]):
            failures.append(f"peak GPU memory {peak_gb:.2f} GiB over the budget of {job['memory_gb']} GiB")
    else:
        notes.append("memory not measured on cpu")
    again = _call(_build(module, params, job["weights_seed"], device), _inputs(module, params, seeds[0], device), device)
    if len(again) != len(first) or not all(_same_bits(a, b) for a, b in zip(first, again)):
        failures.append("nondeterministic: the same seed gave different outputs")
    other = _call(model, _inputs(module, params, seeds[1], device), device)
    if len(other) == len(first) and all(_same_bits(a, b) for a, b in zip(first, other)):
        failures.append("seed-independent: two input seeds gave identical outputs")
    _content_checks(first, inputs, tol, failures)
    del again, other
    ref_ms = _median_ms(model, inputs, device, repeats)
    return {"ok": not failures, "failures": failures, "notes": notes, "ref_ms": ref_ms, "peak_gb": peak_gb,
            "inputs": _specs(inputs), "outputs": _specs(first)}


def run(job, runtime, events):
    """Checks every shape of the job; a shape whose reference raises is reported as failing with
    the exception, and the next shape still runs."""
    del runtime  # timing uses the host clock or CUDA events, not the runtime's sampler
    with phase(events, "load"):
        module = problem.load_module(job["problem_file"], "reference")
        for name in ("Model", "get_inputs", "get_init_inputs"):
            problem.require(module, name, job["problem_file"])
    events.emit("loaded")
    repeats = int(job.get("repeats", 5))
    for shape_idx, shape in enumerate(job["shapes"]):
        try:
            result = _check_shape(job, module, shape, repeats)
        except Exception as exc:  # noqa: BLE001 - the reference's own failure is this shape's finding
            result = {"ok": False, "failures": [f"the reference raised {type(exc).__name__}: {exc}"], "notes": [],
                      "ref_ms": None, "peak_gb": None, "inputs": [], "outputs": []}
        events.emit("shape_check", shape_idx=shape_idx, name=shape.get("name", str(shape_idx)), **result)
