"""The outside clock's batches (docs/guard.md, "The outside clock"). Per shape, after the runtime
has timed it, the runner announces a batch (`outside_ready`) and waits for the orchestrator's go:
one byte on a pipe the orchestrator alone writes. The orchestrator copies the batch's input sets
into `<dir>/in/<shape>/` only then and starts its own clock; the runner maps them, calls the model
on each back to back, waits for the device, brings the outputs to host memory and announces
`outside_done` with where each output lies (its pid, and per set each tensor's dtype, shape,
address and size). The orchestrator holds the process still, stops its clock, reads the outputs
out of the process's memory, lets it go and writes a release byte, which the runner waits for
before any output's memory is freed.

The input sets come from the secret seed stream and exist nowhere the candidate can read before
the go, so no table built ahead serves them; the outputs are verified; the clock is the
orchestrator's. The reference runs the same batch on its own model, and three times with no call
at all (its expected outputs declared), which measures what the batch costs besides the calls.

Python's cyclic collector is run before each batch and kept off until the release: a collection
that a call's allocations set off would otherwise land in the orchestrator's quiet window after
the answer, and the runner's own honest work would read as work that outlives the calls (T2)."""
import gc
import os

from . import problem, tensors
from .bundle import DTYPE_TO_CODE, map_bundle, write_bundle
from .phases import phase, shape_path
from .timing import cloned_outputs, harness_stream

# A batch's input sets hold at most this many bytes (at least one set, at most MAX_CALLS).
BATCH_BYTES = 256 << 20
MAX_CALLS = 8
OVERHEAD_REPEATS = 3
OUTSIDE_SALT = 0x0C10C5E75
HEAP_MIN = 64 << 20
HEAP_MAX = 1 << 30


class Clock:
    """The go pipe (job key outside.fifo), opened before any solution code runs and kept private."""

    def __init__(self, job):
        spec = job.get("outside") or {}
        self.dir = spec.get("dir")
        self._fd = os.open(spec["fifo"], os.O_RDONLY | os.O_CLOEXEC) if spec.get("fifo") else None
        self._read = os.read  # held: a solution replacing os.read later does not reach the go

    @property
    def enabled(self):
        return self._fd is not None

    def wait(self, events, shape_idx, label):
        events.emit("outside_ready", shape_idx=shape_idx, label=label)
        if not self._read(self._fd, 1):
            raise RuntimeError("the orchestrator closed the outside clock before the batch could start")

    def answer(self, events, shape_idx, label, host_outputs):
        """outside_done with the outputs' places; returns once the orchestrator has read them."""
        events.emit("outside_done", shape_idx=shape_idx, label=label, calls=len(host_outputs), pid=os.getpid(),
                    outputs=[[_declared(tensor) for tensor in out] for out in host_outputs])
        if not self._read(self._fd, 1):
            raise RuntimeError("the orchestrator closed the outside clock before reading the batch's outputs")


def _declared(tensor):
    if tensor.dtype not in DTYPE_TO_CODE:
        raise TypeError(f"an output of dtype {tensor.dtype} has no bundle code")
    return {"dtype": DTYPE_TO_CODE[tensor.dtype], "shape": list(tensor.shape), "address": tensor.data_ptr(),
            "nbytes": tensor.numel() * tensor.element_size()}


def _set_names(folder):
    return sorted(os.listdir(folder), key=lambda name: int(name.split(".")[0]))


def _batch_heap(set_bytes):
    """Heap for a whole batch's inputs and outputs held at once (twice a set per call), so that no
    call of the batch faults its output in page by page where a timed sample reuses one block."""
    return min(max(2 * MAX_CALLS * set_bytes, HEAP_MIN), HEAP_MAX)


def run_batch(job, runtime, events, clock, shape_idx, label, call, set_bytes):
    """One batch through the orchestrator's clock; call(set_idx, inputs) returns the outputs;
    set_bytes: one input set's size (what the sets handed over will weigh)."""
    collecting = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        return _run_batch(job, runtime, events, clock, shape_idx, label, call, set_bytes)
    finally:
        if collecting:
            gc.enable()


def _run_batch(job, runtime, events, clock, shape_idx, label, call, set_bytes):
    device = job["device"]
    tensors.reserve_heap(device, _batch_heap(set_bytes))
    clock.wait(events, shape_idx, label)
    in_dir = os.path.join(clock.dir, "in", str(shape_idx))
    input_sets = [map_bundle(runtime, os.path.join(in_dir, name), device) for name in _set_names(in_dir)]
    # Each call's outputs cloned as it returns (as the timed captures are), in every batch alike: a
    # solution that reuses one output buffer per shape is legal, and its last call must not
    # overwrite the earlier ones.
    # In a probe window of its own (label "outside"): the batch's kernels are not work escaping
    # the timed windows.
    with runtime.probe_window("outside", shape_idx, 0, harness_stream(device)):
        outputs = [cloned_outputs(call(set_idx, inputs)) for set_idx, inputs in enumerate(input_sets)]
        tensors.synchronize(device)
    # Host copies held until the orchestrator has read them (on the CPU the clones themselves).
    host_outputs = [[t.detach().to("cpu").contiguous() for t in tensors.normalise_outputs(out)] for out in outputs]
    clock.answer(events, shape_idx, label, host_outputs)
    return outputs


def _set_seed(job, set_idx):
    return ((int(job["seeds"][0]) ^ OUTSIDE_SALT) + 7919 * (set_idx + 1)) & ((1 << 63) - 1)


def write_sets(job, runtime, module, model, shape_idx, params):
    """The reference: the shape's batch input sets (job key outside.sets_dir, a folder no candidate
    sees) and their expected outputs (expected/<shape>/outside/<n>.arbb). Returns the outputs and
    one set's size in bytes."""
    device = job["device"]
    expected = []
    calls = MAX_CALLS
    set_idx = 0
    while set_idx < calls:
        inputs = problem.make_inputs(module, params, _set_seed(job, set_idx), device)
        if set_idx == 0:
            set_bytes = sum(tensors.nbytes_of([v for v in inputs if hasattr(v, "element_size")]))
            calls = max(1, min(MAX_CALLS, BATCH_BYTES // max(set_bytes, 1)))
        write_bundle(runtime, shape_path(job["outside"]["sets_dir"], shape_idx, f"{set_idx}.arbb"), inputs)
        out = tensors.normalise_outputs(model(*[v.clone() if hasattr(v, "clone") else v for v in inputs]))
        write_bundle(runtime, shape_path(job["output_dir"], shape_idx, f"outside/{set_idx}.arbb"), out)
        expected.append(out)
        set_idx += 1
    return expected, set_bytes


def reference_batches(job, runtime, events, clock, module, model, shape_idx, params):
    """The reference's batches: OVERHEAD_REPEATS with no call, its own model's after the first of
    them (a process's first batch pays first-time costs the minimum over the others leaves out)."""
    if not clock.enabled:
        return
    with phase(events, "timing", shape_idx=shape_idx):
        expected, set_bytes = write_sets(job, runtime, module, model, shape_idx, params)
        for repeat_idx in range(OVERHEAD_REPEATS):
            run_batch(job, runtime, events, clock, shape_idx, f"overhead{repeat_idx}",
                      lambda set_idx, _inputs: expected[set_idx], set_bytes)
            if repeat_idx == 0:
                run_batch(job, runtime, events, clock, shape_idx, "reference", lambda _idx, inputs: model(*inputs),
                          set_bytes)


def candidate_batch(job, runtime, events, clock, model, shape_idx, set_bytes):
    """The candidate's batch, then one that calls nothing (the same sets mapped, the batch's outputs
    declared again): the judge takes the smaller of its wall and the reference's as what a batch
    costs besides its calls, so a slower no-call batch here changes nothing and a faster one
    (the machine quieter than when the reference ran) keeps the clock's resolution."""
    if not clock.enabled:
        return
    with phase(events, "timing", shape_idx=shape_idx):
        outputs = run_batch(job, runtime, events, clock, shape_idx, "candidate", lambda _idx, inputs: model(*inputs),
                            set_bytes)
        run_batch(job, runtime, events, clock, shape_idx, "overhead", lambda set_idx, _inputs: outputs[set_idx], set_bytes)
