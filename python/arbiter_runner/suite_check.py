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
and times the baselines with one timing function (median over `repeats` calls after warm-up; host
clock on cpu, CUDA events on cuda):

  eager    the reference Model;
  compile  torch.compile of the reference Model (default mode), after warm-up calls so that
           compilation is not timed; unavailable, with the reason, where torch has no
           torch.compile or compiling raises (not a failure of the problem);
  sota     the problem's sota.py: ModelSota built like Model, the reference's state_dict loaded
           strictly; its outputs must pass the tolerance against the reference's on both seeds,
           else the shape fails ("sota.py: ...").

Job keys: problem_file, device, shapes [{name, params}], tolerance {atol, rtol, mode}, seeds (two),
weights_seed, memory_gb, repeats, baselines {compile: bool, sota: path | null}, events_file."""
import os
import statistics
import time

import torch

from . import problem, tensors
from .phases import phase

MIN_ZERO_MISS = 0.05
COMPILE_WARMUP = 3  # the first call compiles; a second may still recompile (dynamic shapes)


def _build(module, params, weights_seed, device, model_class=None):
    """module.Model (or model_class, e.g. a sota's ModelSota) built from the problem's init inputs,
    its parameters made on the device (a MoE layer's gigabytes of random weights took the host about
    a minute per build; no candidate's seeded construction has to match these weights here)."""
    torch.manual_seed(weights_seed)
    init = problem.as_list(problem.call_with_shape(module.get_init_inputs, module, params), "get_init_inputs")
    with problem.factory_device(device):
        return (model_class or module.Model)(*init).to(device).eval()


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


def _median_ms(model, inputs, device, repeats, warmup=1):
    """Median over `repeats` calls after `warmup` calls, on the same inputs: the one clock of
    every baseline."""
    for _ in range(warmup):
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


def _mismatch(answers, expected, tol):
    """Why answers fail the judge's comparison with expected at tol, or None when they pass."""
    if len(answers) != len(expected):
        return f"{len(answers)} outputs, expected {len(expected)}"
    for idx, (got, want) in enumerate(zip(answers, expected)):
        if got.dtype != want.dtype or got.shape != want.shape:
            return f"output {idx} is {got.dtype} {list(got.shape)}, expected {want.dtype} {list(want.shape)}"
        if not _passes(got, want, tol):
            diff = (got.double() - want.double()).abs()
            return f"output {idx}: max abs difference {float(diff.max()):.3g} (atol {tol['atol']}, rtol {tol['rtol']})"
    return None


def _first_line(exc):
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""


def _compile_baseline(model, inputs, device, repeats):
    """{"median_ms"} of torch.compile(model) in its default mode, or {"unavailable": reason}."""
    if not hasattr(torch, "compile"):
        return {"unavailable": f"torch {torch.__version__} has no torch.compile"}
    try:
        from torch import _dynamo  # noqa: PLC0415 - torch 2 only
        _dynamo.reset()  # each shape compiles afresh instead of hitting the recompile limit
        return {"median_ms": _median_ms(torch.compile(model), inputs, device, repeats, warmup=COMPILE_WARMUP)}
    except Exception as exc:  # noqa: BLE001 - a compiler failure says nothing about the problem
        return {"unavailable": f"torch.compile raised {type(exc).__name__}: {_first_line(exc)}"}


def _sota_baseline(sota, job, module, params, state, cases, repeats, failures):
    """{"median_ms"} of the problem's ModelSota, or None when the problem names none. A sota that
    fails to load, raises, or misses the tolerance on a seed is a failure of the shape, naming the
    file. cases: (seed, inputs, reference outputs) per checked seed."""
    if sota is None:
        return None
    device, name = job["device"], sota["name"]
    if sota["error"]:
        failures.append(sota["error"])
        return {"unavailable": sota["error"]}
    try:
        model = _build(module, params, job["weights_seed"], device, sota["module"].ModelSota)
        model.load_state_dict(state, strict=True)
        for seed, inputs, expected in cases:
            why = _mismatch(_call(model, inputs, device), expected, job["tolerance"])
            if why:
                failures.append(f"{name}: output outside tolerance on seed {seed}: {why}")
                return {"unavailable": f"{name}: output outside tolerance"}
        return {"median_ms": _median_ms(model, cases[0][1], device, repeats)}
    except Exception as exc:  # noqa: BLE001 - a broken sota is this shape's finding
        failures.append(f"{name} raised {type(exc).__name__}: {_first_line(exc)}")
        return {"unavailable": f"{name} raised {type(exc).__name__}"}


def _check_shape(job, module, shape, repeats, sota):
    device, seeds, tol = job["device"], job["seeds"], job["tolerance"]
    params = shape.get("params", {})
    failures, notes = [], []
    model = _build(module, params, job["weights_seed"], device)
    if device == "cuda":  # after the build: its temporaries are not the call's; the model's weights stay counted
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    inputs = problem.make_inputs(module, params, seeds[0], device)
    first = _call(model, inputs, device)
    peak_gb = None
    if device == "cuda":
        peak_gb = torch.cuda.max_memory_allocated() / 2 ** 30
        if peak_gb > float(job["memory_gb"]):
            failures.append(f"peak GPU memory {peak_gb:.2f} GiB over the budget of {job['memory_gb']} GiB")
    else:
        notes.append("memory not measured on cpu")
    again = _call(_build(module, params, job["weights_seed"], device),
                  problem.make_inputs(module, params, seeds[0], device), device)
    if len(again) != len(first) or not all(_same_bits(a, b) for a, b in zip(first, again)):
        failures.append("nondeterministic: the same seed gave different outputs")
    del again
    other_inputs = problem.make_inputs(module, params, seeds[1], device)
    other = _call(model, other_inputs, device)
    if len(other) == len(first) and all(_same_bits(a, b) for a, b in zip(first, other)):
        failures.append("seed-independent: two input seeds gave identical outputs")
    _content_checks(first, inputs, tol, failures)
    ref_ms = _median_ms(model, inputs, device, repeats)
    cases = [(seeds[0], inputs, first), (seeds[1], other_inputs, other)]
    baselines = {"eager": {"median_ms": ref_ms},
                 "compile": _compile_baseline(model, inputs, device, repeats) if job["baselines"].get("compile") else None,
                 "sota": _sota_baseline(sota, job, module, params, model.state_dict(), cases, repeats, failures)}
    return {"ok": not failures, "failures": failures, "notes": notes, "ref_ms": ref_ms, "peak_gb": peak_gb,
            "baselines": baselines, "inputs": _specs(inputs), "outputs": _specs(first)}


def _load_sota(job):
    """{"module", "name", "error"} for the job's sota.py, or None when it names none. A file that
    fails to import or defines no ModelSota is reported on every shape, not as the problem's error."""
    path = (job.get("baselines") or {}).get("sota")
    if not path:
        return None
    name = os.path.basename(path)
    try:
        module = problem.load_module(path, "sota")
        problem.require(module, "ModelSota", path)
        return {"module": module, "name": name, "error": None}
    except Exception as exc:  # noqa: BLE001 - reported per shape
        return {"module": None, "name": name, "error": f"{name} failed to load: {type(exc).__name__}: {_first_line(exc)}"}


def run(job, runtime, events):
    """Checks every shape of the job; a shape whose reference raises is reported as failing with
    the exception, and the next shape still runs."""
    del runtime  # timing uses the host clock or CUDA events, not the runtime's sampler
    job.setdefault("baselines", {})
    with phase(events, "load"):
        module = problem.load_module(job["problem_file"], "reference")
        for name in ("Model", "get_inputs", "get_init_inputs"):
            problem.require(module, name, job["problem_file"])
    events.emit("loaded")
    sota = _load_sota(job)
    repeats = int(job.get("repeats", 5))
    for shape_idx, shape in enumerate(job["shapes"]):
        try:
            result = _check_shape(job, module, shape, repeats, sota)
        except Exception as exc:  # noqa: BLE001 - the reference's own failure is this shape's finding
            result = {"ok": False, "failures": [f"the reference raised {type(exc).__name__}: {exc}"], "notes": [],
                      "ref_ms": None, "peak_gb": None, "baselines": {}, "inputs": [], "outputs": []}
        events.emit("shape_check", shape_idx=shape_idx, name=shape.get("name", str(shape_idx)), **result)
