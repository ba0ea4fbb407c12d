"""The reference mode end to end: `python3 -m arbiter_runner reference` on tiny problems."""
import json
import os

import pytest
import torch

from arbiter_runner.bundle import read_bundle
from conftest import LINEAR_RELU, LINEAR_RELU_SHAPE, read_outputs, reference_job, run_runner, write_source


def test_kernelbench_file_with_module_constants(runtime, runtime_lib, tmp_path):
    problem_file = write_source(tmp_path / "problem" / "reference.py", LINEAR_RELU)
    job = reference_job(tmp_path, runtime_lib, problem_file, [LINEAR_RELU_SHAPE])
    result = run_runner("reference", job, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.names() == ["start", "loaded", "case", "case", "timed", "done"]
    assert result.events[0]["mode"] == "reference" and result.events[0]["torch"] == torch.__version__
    assert [e["inputs_mutated"] for e in result.of("case")] == [False, False]

    init = read_bundle(runtime, os.path.join(job["exchange_dir"], "0", "init.arbb"))
    assert init == [5, 2]  # the shape's params reached the module constants
    state = torch.load(os.path.join(job["exchange_dir"], "0", "state.pt"))
    for seed_idx, seed in enumerate(job["seeds"]):
        (x,) = read_outputs(runtime, job["exchange_dir"], 0, seed_idx, "inputs.arbb")
        torch.manual_seed(seed)
        assert torch.equal(x, torch.randn(3, 5))  # inputs come from the case's seed
        (y,) = read_outputs(runtime, job["output_dir"], 0, seed_idx)
        assert torch.allclose(y, torch.relu(x @ state["linear.weight"].t() + state["linear.bias"]))

    with open(os.path.join(job["timing_dir"], "0.json"), encoding="utf-8") as file:
        timing = json.load(file)
    assert timing["device"] == "cpu" and timing["warmup"] == 1
    assert 2 <= timing["samples"] <= 3 and len(timing["times_ms"]) == timing["samples"]
    assert timing["stop"] in ("noise", "max_samples")


def test_shape_keyword_arguments(runtime, runtime_lib, tmp_path):
    problem_file = write_source(tmp_path / "problem" / "reference.py", """
        import torch
        class Model(torch.nn.Module):
            def forward(self, x, scale):
                return torch.softmax(x * scale, dim=-1), x.sum()
        def get_inputs(rows=2, cols=2):
            return [torch.randn(rows, cols), 0.5]
        def get_init_inputs(**shape):
            return []
    """)
    shapes = [{"name": "a", "params": {"rows": 3, "cols": 7, "unused": 1}},
              {"name": "b", "params": {"rows": 1, "cols": 2}}]
    job = reference_job(tmp_path, runtime_lib, problem_file, shapes, seeds=[5])
    result = run_runner("reference", job, tmp_path)
    assert result.returncode == 0, result.stderr
    assert [e["shape_idx"] for e in result.of("timed")] == [0, 1]
    x, scale = read_outputs(runtime, job["exchange_dir"], 0, 0, "inputs.arbb")
    assert x.shape == (3, 7) and scale == 0.5
    softmax, total = read_outputs(runtime, job["output_dir"], 0, 0)
    assert softmax.shape == (3, 7) and total.shape == ()
    assert read_outputs(runtime, job["exchange_dir"], 1, 0, "inputs.arbb")[0].shape == (1, 2)


def test_failing_reference_reports_the_phase(runtime_lib, tmp_path):
    problem_file = write_source(tmp_path / "problem" / "reference.py", """
        import torch
        class Model(torch.nn.Module):
            def forward(self, x):
                return {"not": "a tensor"}
        def get_inputs():
            return [torch.randn(2)]
        def get_init_inputs():
            return []
    """)
    job = reference_job(tmp_path, runtime_lib, problem_file, [{"name": "s", "params": {}}])
    result = run_runner("reference", job, tmp_path)
    assert result.returncode == 1
    (error,) = result.of("error")
    assert error["phase"] == "case" and error["type"] == "TypeError" and "dict" in error["message"]
    assert "done" not in result.names()


def test_inputs_are_made_on_the_device_the_case_runs_on(tmp_path):
    from arbiter_runner import problem
    module_file = write_source(tmp_path / "inputs_problem.py", """
        import torch
        def get_inputs(n=3):
            return [torch.randn(n, 2), torch.randperm(n), 7]
    """)
    module = problem.load_module(str(module_file), "inputs_problem")
    first = problem.make_inputs(module, {"n": 4}, 11, "cpu")
    again = problem.make_inputs(module, {"n": 4}, 11, "cpu")
    other = problem.make_inputs(module, {"n": 4}, 12, "cpu")
    assert first[0].shape == (4, 2) and first[2] == 7
    assert torch.equal(first[0], again[0]) and torch.equal(first[1], again[1])
    assert not torch.equal(first[0], other[0])
    if hasattr(torch.device, "__enter__"):  # torch >= 2.0: factory functions follow the device context
        made = problem.make_inputs(module, {"n": 4}, 11, "meta")
        assert made[0].device.type == "meta" and made[1].device.type == "meta"
    else:
        with problem.factory_device("meta"):
            assert torch.randn(1).device.type == "cpu"  # no device context in this torch: unchanged


def test_inputs_that_cannot_be_made_on_the_device_are_made_on_the_host(tmp_path, monkeypatch):
    import contextlib
    from arbiter_runner import problem
    module_file = write_source(tmp_path / "host_generator.py", """
        import torch
        ON_DEVICE = False
        def get_inputs(n=3):
            if ON_DEVICE:  # what randn says of a host generator under a cuda device context
                raise RuntimeError("Expected a 'cuda' device type for generator but found 'cpu'")
            return [torch.randn(n, generator=torch.Generator().manual_seed(0))]
    """)
    module = problem.load_module(str(module_file), "host_generator")

    @contextlib.contextmanager
    def device_factories(device):
        module.ON_DEVICE = device != "cpu"
        try:
            yield
        finally:
            module.ON_DEVICE = False

    monkeypatch.setattr(problem, "factory_device", device_factories)
    monkeypatch.setattr(problem.tensors, "to_device", lambda values, device: values)
    (made,) = problem.make_inputs(module, {"n": 4}, 11, "cuda")
    assert torch.equal(made, torch.randn(4, generator=torch.Generator().manual_seed(0)))
    broken = write_source(tmp_path / "broken_inputs.py", """
        def get_inputs():
            raise ValueError("no inputs here")
    """)
    with pytest.raises(ValueError, match="no inputs here"):  # failing on the host too: the host's error
        problem.make_inputs(problem.load_module(str(broken), "broken_inputs"), {}, 11, "cuda")


def test_inputs_that_fail_on_the_host_are_not_made_twice(tmp_path, monkeypatch):
    """Where the factories stay on the host (cpu, a torch without device contexts), the first
    failure is the host's: get_inputs is not called again."""
    import contextlib
    from arbiter_runner import problem
    module = problem.load_module(str(write_source(tmp_path / "counted.py", """
        CALLS = []
        def get_inputs():
            CALLS.append(1)
            raise ValueError("no inputs here")
    """)), "counted")
    monkeypatch.setattr(problem, "factory_device", lambda device: contextlib.nullcontext())
    for device in ("cpu", "cuda"):
        module.CALLS.clear()
        with pytest.raises(ValueError, match="no inputs here"):
            problem.make_inputs(module, {}, 11, device)
        assert len(module.CALLS) == 1, device


def test_the_guard_times_the_references_call_on_each_mutation_set(runtime_lib, tmp_path):
    # The work check's yardstick: what a trusted model's call on inputs it has not seen costs,
    # timed as the candidate's mutation re-run is.
    problem_file = write_source(tmp_path / "problem" / "reference.py", LINEAR_RELU)
    job = dict(reference_job(tmp_path, runtime_lib, problem_file, [LINEAR_RELU_SHAPE], seeds=[11, 22]), guard=True)
    result = run_runner("reference", job, tmp_path)
    assert result.returncode == 0, result.stderr
    fresh = [e.get("fresh_call_ms") for e in result.of("case")]
    assert len(fresh) == 2 and all(isinstance(ms, float) and ms > 0 for ms in fresh), fresh
