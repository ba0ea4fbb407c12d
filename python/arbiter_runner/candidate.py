"""Candidate mode: imports the solution, rebuilds each shape's model with the reference's
weights, runs it on the exchanged inputs, writes its outputs, then times it. It never sees
seeds, the problem file or expected outputs."""
import glob
import json
import os
import time

import torch

from . import guard_checks, outside, problem, tensors
from .bundle import read_bundle, write_bundle
from .phases import case_path, phase, shape_path, timing_path
from .sealed import Sealed
from .timing import Capture, harness_stream, time_model

MAX_STRESS_SCALES = 16
HEAP_RESERVE_FACTOR = 8
HEAP_RESERVE_MIN = 64 << 20
HEAP_RESERVE_MAX = 1 << 30
# Held from before the solution loads: the fresh call's wall time does not go through a clock the
# solution could replace.
_perf_counter = time.perf_counter


def _load(job, events):
    path = job["solution_file"]
    with phase(events, "load"):
        module = problem.load_module(path, "kernel")
        problem.require(module, "ModelNew", path)
    events.emit("loaded")
    return module


def build(job, runtime, events):
    """Build mode: import only, so that extension builds and Triton warm-up fill the model's
    caches on CPU cores ahead of the timed candidate run."""
    _load(job, events)


def _construct(module, init, job):
    torch.manual_seed(job["weights_seed"])
    return module.ModelNew(*init).to(job["device"]).eval()


def _build(job, runtime, events, module, shape_idx):
    device = job["device"]
    with phase(events, "init", shape_idx=shape_idx):
        init = read_bundle(runtime, shape_path(job["exchange_dir"], shape_idx, "init.arbb"))
        model = _construct(module, init, job)
        state = torch.load(shape_path(job["exchange_dir"], shape_idx, "state.pt"), map_location=device)
        try:
            model.load_state_dict(state, strict=True)
            how = "loaded"
        except (RuntimeError, KeyError, ValueError, TypeError):
            # A strict load that fails may already have copied the matching tensors, so the
            # seeded construction is rebuilt rather than trusted (KernelBench's behaviour).
            model = _construct(module, init, job)
            how = "seeded"
    events.emit("weights", shape_idx=shape_idx, how=how)
    return model


def _run_case(job, runtime, events, model, shape_idx, seed_idx, poison_sizes, sealed):
    """Runs one case; returns the byte sizes of its outputs, to poison the next case with."""
    device = job["device"]
    with phase(events, "case", shape_idx=shape_idx, seed_idx=seed_idx):
        # Hashed as read, before the move: the bytes on the device are these, and no copy back is needed.
        host_inputs = read_bundle(runtime, case_path(job["exchange_dir"], shape_idx, seed_idx, "inputs.arbb"))
        before = tensors.hash_values(runtime, host_inputs, "cpu")
        inputs = tensors.to_device(host_inputs, device)
        del host_inputs
        # Hashing may allocate, so it comes first; the poisoned blocks must be the last freed.
        # Output sizes are known from the previous case; the first case uses the largest input.
        tensor_sizes = tensors.nbytes_of([v for v in inputs if isinstance(v, torch.Tensor)])
        tensors.poison_allocator(device, poison_sizes or [max(tensor_sizes, default=0)])
        with runtime.probe_window("case", shape_idx, seed_idx, harness_stream(device)):
            outputs = tensors.normalise_outputs(model(*inputs))
            tensors.synchronize(device)
        after = tensors.hash_values(runtime, inputs, device)
        types, aliases = guard_checks.output_evidence(outputs, inputs)
        write_bundle(runtime, case_path(job["output_dir"], shape_idx, seed_idx, "outputs.arbb"), outputs)
        # The re-runs follow the reference's mutation sets (none on the later input sets of a large
        # case); the orchestrator expects a re-run wherever the reference wrote one.
        fresh = {}
        if job.get("guard", False) and sealed.has(case_path("", shape_idx, seed_idx, "mutation.arbb")):
            fresh = {"fresh_call_ms": _rerun_case(job, runtime, model, shape_idx, seed_idx, inputs, sealed)}
    events.emit("case", shape_idx=shape_idx, seed_idx=seed_idx, inputs_mutated=before != after,
                output_types=types, aliases=aliases, **fresh)
    return tensors.nbytes_of(outputs)


def _call_and_write(job, runtime, model, inputs, path):
    """Calls the model once and writes its outputs; returns the call's wall time in ms (the device
    synchronised before and after: the overwrite of the inputs is not the call's), the write left out."""
    tensors.synchronize(job["device"])
    start = _perf_counter()
    outputs = tensors.normalise_outputs(model(*inputs))
    tensors.synchronize(job["device"])
    wall_ms = (_perf_counter() - start) * 1e3
    write_bundle(runtime, path, outputs)
    return wall_ms


def _rerun_case(job, runtime, model, shape_idx, seed_idx, inputs, sealed):
    """The mutation re-run (the same input tensors overwritten in place with the sealed mutation
    set) and the determinism re-run (the original contents copied back, called again). Returns the
    mutation call's wall time: the cost of a call on inputs the solution could not know in advance."""
    device = job["device"]
    mutation = case_path("", shape_idx, seed_idx, "mutation.arbb")
    guard_checks.overwrite_inputs(inputs, read_bundle(runtime, sealed.path(mutation), device))
    sealed.close(mutation)
    fresh_ms = _call_and_write(job, runtime, model, inputs, case_path(job["output_dir"], shape_idx, seed_idx, "mutation.arbb"))
    handed = read_bundle(runtime, case_path(job["exchange_dir"], shape_idx, seed_idx, "inputs.arbb"), device)
    guard_checks.overwrite_inputs(inputs, handed)
    _call_and_write(job, runtime, model, inputs, case_path(job["output_dir"], shape_idx, seed_idx, "repeat.arbb"))
    return fresh_ms


def _stress(job, runtime, events, model, shape_idx):
    """Every stress set the reference wrote for this shape, called once each."""
    for scale_idx in range(MAX_STRESS_SCALES):  # the reference wrote a file per usable scale
        source = shape_path(job["exchange_dir"], shape_idx, f"stress{scale_idx}.arbb")
        if not os.path.exists(source):
            continue
        with phase(events, "case", shape_idx=shape_idx):
            inputs = read_bundle(runtime, source, job["device"])
            _call_and_write(job, runtime, model, inputs, shape_path(job["output_dir"], shape_idx, f"stress{scale_idx}.arbb"))


def _time(job, runtime, events, model, shape_idx, large):
    """Times the model as the reference is timed, keeping a random few timed outputs
    (outputs/<shape>/timed/<n>.arbb, indexed by timed.json) for the orchestrator to verify; for a
    large case one random and the last. The timing record and the capture index also go out as
    events: the orchestrator judges from those, the files stay for people reading the folder."""
    device = job["device"]
    capture = (Capture(limit=1) if large else Capture()) if job.get("guard", False) else None
    index = None
    with phase(events, "timing", shape_idx=shape_idx):
        input_sets = [read_bundle(runtime, case_path(job["exchange_dir"], shape_idx, seed_idx, "inputs.arbb"), device)
                      for seed_idx in range(int(job["num_seeds"]))]
        time_model(runtime, model, input_sets, device, job.get("timing", {}), timing_path(job, shape_idx), capture,
                   group=shape_idx)
        # The record from the runtime's memory, before any solution code is called again.
        events.emit("timing", shape_idx=shape_idx, record=runtime.last_timing())
        if capture is not None:
            patched = capture.tampered()
            if patched:
                events.emit("integrity", stage="timing", patched=patched)
            index = _write_captures(job, runtime, shape_idx, capture.finish(), len(input_sets))
    events.emit("timed", shape_idx=shape_idx, **({} if index is None else {"captures": index}))


def _write_captures(job, runtime, shape_idx, kept, num_sets):
    """Writes the kept outputs and their index (timed.json); returns the index."""
    tensors.synchronize(job["device"])
    index = []
    for capture_idx, (call_idx, outputs) in enumerate(kept):
        name = f"timed/{capture_idx}.arbb"
        path = shape_path(job["output_dir"], shape_idx, name)
        write_bundle(runtime, path, tensors.normalise_outputs(outputs))
        # The file stays in the candidate's folder: its digest on the channel shows a later rewrite.
        index.append({"call_idx": call_idx, "input_set": call_idx % num_sets, "file": name,
                      "digest": tensors.file_digest(runtime, path)})
    with open(shape_path(job["output_dir"], shape_idx, "timed.json"), "w", encoding="utf-8") as file:
        json.dump(index, file)
    return index


def _observe(events, watch, stage):
    if watch is None:  # a job without the guard's checks (the runner's own tests)
        return
    events.emit("census", **watch.census(stage))
    events.emit("integrity", stage=stage, patched=watch.patched())


def _heap_to_reserve(job):
    """What a case keeps live at once, generously: its inputs, outputs, the sealed set read beside
    them and the timing's input sets, against the largest input set exchanged; 64 MiB to 1 GiB."""
    pattern = case_path(glob.escape(job["exchange_dir"]), "*", "*", "inputs.arbb")
    largest = max((os.path.getsize(path) for path in glob.glob(pattern)), default=0)
    return min(max(HEAP_RESERVE_FACTOR * largest, HEAP_RESERVE_MIN), HEAP_RESERVE_MAX)


def run(job, runtime, events):
    """Runs every shape; raises PhaseFailed after writing an error event."""
    watch = guard_checks.Watch(runtime) if job.get("guard", False) else None
    sealed = Sealed(job.get("sealed_dir"))  # before the import: the solution never sees the folder's files
    clock = outside.Clock(job)  # the go pipe, opened before the import too
    # The fresh call's wall time is the work check's measure: no page faults in it that the timed
    # loop, reusing one block, never pays (docs/guard.md, "The work check").
    tensors.reserve_heap(job["device"], _heap_to_reserve(job))
    module = _load(job, events)
    _observe(events, watch, "after_load")
    for shape_idx, _shape in enumerate(job["shapes"]):
        model = _build(job, runtime, events, module, shape_idx)
        poison_sizes = []
        for seed_idx in range(int(job["num_seeds"])):
            poison_sizes = _run_case(job, runtime, events, model, shape_idx, seed_idx, poison_sizes, sealed)
        if job.get("guard", False):
            _stress(job, runtime, events, model, shape_idx)
        _time(job, runtime, events, model, shape_idx, tensors.is_large(poison_sizes, job))
        set_bytes = os.path.getsize(case_path(job["exchange_dir"], shape_idx, 0, "inputs.arbb"))
        outside.candidate_batch(job, runtime, events, clock, model, shape_idx, set_bytes)
    _observe(events, watch, "after_calls")
