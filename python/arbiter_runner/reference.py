"""Reference mode: a clean process (it never loads a solution) that writes each shape's
constructor arguments, weights, input sets and expected outputs, then times the reference."""
import torch

from . import checks_reference, guard_checks, outside, problem, tensors
from .bundle import read_bundle, write_bundle
from .phases import case_path, phase, shape_path, timing_path
from .timing import time_model


def _load(job, events):
    path = job["problem_file"]
    with phase(events, "load"):
        module = problem.load_module(path, "reference")
        for name in ("Model", "get_inputs", "get_init_inputs"):
            problem.require(module, name, path)
    events.emit("loaded")
    return module


def _build(job, runtime, events, module, shape_idx, params):
    with phase(events, "init", shape_idx=shape_idx):
        torch.manual_seed(job["weights_seed"])
        init = problem.as_list(problem.call_with_shape(module.get_init_inputs, module, params), "get_init_inputs")
        model = module.Model(*init).to(job["device"]).eval()
        write_bundle(runtime, shape_path(job["exchange_dir"], shape_idx, "init.arbb"), init)
        torch.save(model.state_dict(), shape_path(job["exchange_dir"], shape_idx, "state.pt"))
    return model


def _run_case(job, runtime, events, module, model, shape_idx, seed_idx, params):
    device = job["device"]
    with phase(events, "case", shape_idx=shape_idx, seed_idx=seed_idx):
        inputs = problem.make_inputs(module, params, job["seeds"][seed_idx], device)
        # Written before the call: a reference that works in place must not change what the
        # candidate receives.
        write_bundle(runtime, case_path(job["exchange_dir"], shape_idx, seed_idx, "inputs.arbb"), inputs)
        before = tensors.hash_values(runtime, inputs, device)
        outputs = tensors.normalise_outputs(model(*inputs))
        tensors.synchronize(device)
        after = tensors.hash_values(runtime, inputs, device)
        _, aliases = guard_checks.output_evidence(outputs, inputs)
        write_bundle(runtime, case_path(job["output_dir"], shape_idx, seed_idx, "outputs.arbb"), outputs)
        fresh = {}
        if job.get("guard", False):
            fresh_ms = _guard_sets(job, runtime, module, model, shape_idx, seed_idx, params,
                                   tensors.is_large(tensors.nbytes_of(outputs), job))
            fresh = {} if fresh_ms is None else {"fresh_call_ms": fresh_ms}
    events.emit("case", shape_idx=shape_idx, seed_idx=seed_idx, inputs_mutated=before != after,
                output_aliases_input=bool(aliases), **fresh)


def _guard_sets(job, runtime, module, model, shape_idx, seed_idx, params, large):
    """The guard's extra sets (checks_reference), from the inputs as written to the exchange. A
    large case gets its mutation set on input set 0 only (tensors.LARGE_CASE_BYTES). Returns the
    mutation call's wall time in ms, None when the case has no mutation set."""
    path = case_path(job["exchange_dir"], shape_idx, seed_idx, "inputs.arbb")
    fresh_ms = None
    if seed_idx == 0 or not large:
        inputs = read_bundle(runtime, path, job["device"])
        fresh_ms = checks_reference.write_mutation(job, runtime, module, model, shape_idx, seed_idx, params, inputs)
    if seed_idx == 0:  # the orchestrator finds these by their files: a skipped one has none
        checks_reference.write_stress(job, runtime, model, shape_idx, read_bundle(runtime, path, job["device"]))
        if job.get("float64_check", False):
            checks_reference.write_float64(job, runtime, model, shape_idx, read_bundle(runtime, path, job["device"]))
    return fresh_ms


def time_shape(job, runtime, events, model, shape_idx):
    """Times model on the shape's input sets as written to the exchange, so the reference and
    the candidate are timed on identical, unmutated inputs."""
    device = job["device"]
    with phase(events, "timing", shape_idx=shape_idx):
        input_sets = [read_bundle(runtime, case_path(job["exchange_dir"], shape_idx, seed_idx, "inputs.arbb"), device)
                      for seed_idx in range(int(job["num_seeds"]))]
        time_model(runtime, model, input_sets, device, job.get("timing", {}), timing_path(job, shape_idx), group=shape_idx)
    events.emit("timed", shape_idx=shape_idx)


def run(job, runtime, events):
    """Runs every shape; raises PhaseFailed after writing an error event."""
    clock = outside.Clock(job)
    module = _load(job, events)
    if len(job["seeds"]) != int(job["num_seeds"]):
        raise ValueError(f"job has {len(job['seeds'])} seeds but num_seeds {job['num_seeds']}")
    for shape_idx, shape in enumerate(job["shapes"]):
        params = shape.get("params", {})
        model = _build(job, runtime, events, module, shape_idx, params)
        for seed_idx in range(len(job["seeds"])):
            _run_case(job, runtime, events, module, model, shape_idx, seed_idx, params)
        time_shape(job, runtime, events, model, shape_idx)
        outside.reference_batches(job, runtime, events, clock, module, model, shape_idx, params)
