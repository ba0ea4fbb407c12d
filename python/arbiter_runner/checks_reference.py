"""The reference's share of the guard's dynamic checks (docs/guard.md): for each case a mutation
set (the inputs with a random block replaced by fresh values, for the in-place mutation re-run),
per shape the stress sets (input set 0 scaled by each of the problem's stress scales) and a float64
expected output for float32 problems. Inputs go to the exchange, expected outputs to expected/;
mutation sets to the sealed folder, which candidates receive emptied into descriptors before their
solution is imported (sealed.py)."""
import copy
import time

import torch

from . import problem, tensors
from .bundle import write_bundle
from .phases import case_path, shape_path

MUTATION_SALT = 0x5EED5A1755


def _mutated(inputs, fresh, generator):
    """inputs with one random block of each tensor replaced by the same block of fresh."""
    out = []
    for value, other in zip(inputs, fresh):
        if not isinstance(value, torch.Tensor) or not isinstance(other, torch.Tensor) or value.shape != other.shape \
                or value.numel() < 4:
            out.append(value)
            continue
        flat, source = value.clone().reshape(-1), other.reshape(-1)
        length = max(1, flat.numel() // 16)
        # The block never touches the first or last element: a key sampled there must miss it.
        start = int(torch.randint(1, flat.numel() - length, (1,), generator=generator))
        flat[start:start + length] = source[start:start + length]
        out.append(flat.reshape(value.shape))
    return out


def write_mutation(job, runtime, module, model, shape_idx, seed_idx, params, inputs):
    """Writes the case's mutation set and its expected output. Returns the call's wall time in ms,
    timed as the candidate's mutation re-run is (the device synchronised before and after): what
    a trusted model's call on inputs it has not seen costs beside its timed median, the work
    check's yardstick."""
    device = job["device"]
    seed = (int(job["seeds"][seed_idx]) ^ MUTATION_SALT) & ((1 << 63) - 1)
    fresh = problem.make_inputs(module, params, seed, device)
    mutated = _mutated(inputs, fresh, torch.Generator().manual_seed(seed))
    write_bundle(runtime, case_path(job["sealed_dir"], shape_idx, seed_idx, "mutation.arbb"), mutated)
    args = [v.clone() if isinstance(v, torch.Tensor) else v for v in mutated]
    tensors.synchronize(device)
    start = time.perf_counter()
    outputs = tensors.normalise_outputs(model(*args))
    tensors.synchronize(device)
    fresh_ms = (time.perf_counter() - start) * 1e3
    write_bundle(runtime, case_path(job["output_dir"], shape_idx, seed_idx, "mutation.arbb"), outputs)
    return fresh_ms


def _scaled(inputs, scale):
    return [v * scale if isinstance(v, torch.Tensor) and v.is_floating_point() else v for v in inputs]


def write_stress(job, runtime, model, shape_idx, inputs):
    """Stress set j: floating inputs × scales[j]. A scale whose expected output is not finite is
    skipped (no file): it says nothing about the candidate. Returns the scales written."""
    written = []
    for scale_idx, scale in enumerate(job.get("stress_scales", [])):
        scaled = _scaled(inputs, float(scale))
        outputs = tensors.normalise_outputs(model(*[v.clone() if isinstance(v, torch.Tensor) else v for v in scaled]))
        if not all(bool(torch.isfinite(o).all()) for o in outputs if o.is_floating_point()):
            continue
        write_bundle(runtime, shape_path(job["exchange_dir"], shape_idx, f"stress{scale_idx}.arbb"), scaled)
        write_bundle(runtime, shape_path(job["output_dir"], shape_idx, f"stress{scale_idx}.arbb"), outputs)
        written.append(scale)
    return written


def write_float64(job, runtime, model, shape_idx, inputs):
    """Input set 0 through a float64 copy of the model, for float32 problems; False if the model
    cannot be run in float64 (then there is no check)."""
    if not any(isinstance(v, torch.Tensor) and v.dtype == torch.float32 for v in inputs):
        return False
    try:
        model64 = copy.deepcopy(model).double()
        wide = [v.double() if isinstance(v, torch.Tensor) and v.dtype == torch.float32 else v for v in inputs]
        outputs = tensors.normalise_outputs(model64(*wide))
    except Exception:  # noqa: BLE001 - a model that will not widen simply has no float64 check
        return False
    write_bundle(runtime, case_path(job["output_dir"], shape_idx, 0, "float64.arbb"), outputs)
    return True
