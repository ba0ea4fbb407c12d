"""The candidate mode end to end: a reference run, then `python3 -m arbiter_runner candidate`
on solutions that are correct, broken at import, broken in forward, restructured or cheating."""
import json
import os
import textwrap

import pytest
import torch

from conftest import (LINEAR_RELU, LINEAR_RELU_SHAPE, candidate_job, read_outputs, reference_job, run_runner,
                      write_source)

CORRECT = """
import torch
import torch.nn as nn

class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.clamp_min(torch.addmm(self.linear.bias, x, self.linear.weight.t()), 0.0)
"""


def patched(extra):
    """CORRECT with extra module-level code appended (typically replacing ModelNew.forward)."""
    return CORRECT + textwrap.dedent(extra)


@pytest.fixture(scope="module")
def reference_run(runtime_lib, tmp_path_factory):
    root = tmp_path_factory.mktemp("reference")
    problem_file = write_source(root / "problem" / "reference.py", LINEAR_RELU)
    job = reference_job(root, runtime_lib, problem_file, [LINEAR_RELU_SHAPE], seeds=[11, 22, 33])
    result = run_runner("reference", job, root)
    assert result.returncode == 0, result.stderr
    return job


def run_candidate(reference_run, tmp_path, source):
    solution_file = write_source(tmp_path / "work" / "kernel.py", source)
    job = candidate_job(tmp_path, reference_run, solution_file)
    assert "seeds" not in job and "problem_file" not in job
    return job, run_runner("candidate", job, tmp_path)


def assert_matches_expected(runtime, reference_run, job):
    for seed_idx in range(reference_run["num_seeds"]):
        got = read_outputs(runtime, job["output_dir"], 0, seed_idx)
        expected = read_outputs(runtime, reference_run["output_dir"], 0, seed_idx)
        assert len(got) == len(expected) == 1
        assert torch.allclose(got[0], expected[0], atol=1e-6)


def test_correct_solution(runtime, reference_run, tmp_path):
    job, result = run_candidate(reference_run, tmp_path, CORRECT)
    assert result.returncode == 0, result.stderr
    assert result.names() == ["start", "loaded", "weights", "case", "case", "case", "timing", "timed", "done"]
    assert result.of("weights")[0]["how"] == "loaded"
    assert [e["seed_idx"] for e in result.of("case")] == [0, 1, 2]
    assert not any(e["inputs_mutated"] for e in result.of("case"))
    assert_matches_expected(runtime, reference_run, job)
    with open(os.path.join(job["timing_dir"], "0.json"), encoding="utf-8") as file:
        record = json.load(file)
    assert record["samples"] >= 2
    assert result.of("timing")[0] == {"event": "timing", "t": result.of("timing")[0]["t"], "shape_idx": 0, "record": record}
    assert "captures" not in result.of("timed")[0]  # no guard, no captures


def test_import_error_is_phase_load(reference_run, tmp_path):
    _, result = run_candidate(reference_run, tmp_path, """
        import torch
        raise ImportError("extension failed to build")
    """)
    assert result.returncode == 1
    assert result.names() == ["start", "error"]
    error = result.of("error")[0]
    assert error["phase"] == "load" and error["type"] == "ImportError"
    assert "extension failed to build" in error["message"] and "kernel.py" in error["traceback"]


def test_missing_model_new_is_phase_load(reference_run, tmp_path):
    _, result = run_candidate(reference_run, tmp_path, "import torch\nclass Model(torch.nn.Module):\n    pass\n")
    assert result.returncode == 1
    assert result.of("error")[0]["phase"] == "load" and "ModelNew" in result.of("error")[0]["message"]


def test_forward_error_is_phase_case(reference_run, tmp_path):
    _, result = run_candidate(reference_run, tmp_path, patched("""
    def forward(self, x):
        raise ValueError("bad launch config")
    ModelNew.forward = forward
    """))
    assert result.returncode == 1
    error = result.of("error")[0]
    assert (error["phase"], error["type"], error["shape_idx"], error["seed_idx"]) == ("case", "ValueError", 0, 0)
    assert "done" not in result.names()


def test_failure_while_timed_is_phase_timing(reference_run, tmp_path):
    # Passes the three correctness calls, then fails inside the C timing loop's callback.
    _, result = run_candidate(reference_run, tmp_path, patched("""
    calls = [0]
    original = ModelNew.forward
    def forward(self, x):
        calls[0] += 1
        if calls[0] > 4:
            raise ZeroDivisionError("fails only under timing")
        return original(self, x)
    ModelNew.forward = forward
    """))
    assert result.returncode == 1
    error = result.of("error")[0]
    assert (error["phase"], error["type"]) == ("timing", "ZeroDivisionError")
    assert "fails only under timing" in error["message"]


def test_renamed_parameters_fall_back_to_seeded_weights(runtime, reference_run, tmp_path):
    job, result = run_candidate(reference_run, tmp_path, """
        import torch
        import torch.nn as nn

        class ModelNew(nn.Module):
            def __init__(self, in_features, out_features):
                super().__init__()
                self.proj = nn.Linear(in_features, out_features)

            def forward(self, x):
                return torch.relu(self.proj(x))
    """)
    assert result.returncode == 0, result.stderr
    assert result.of("weights")[0]["how"] == "seeded"
    # Same seed, same construction order: KernelBench's seeded weights equal the reference's.
    assert_matches_expected(runtime, reference_run, job)


def test_mutating_an_input_is_reported(reference_run, tmp_path):
    _, result = run_candidate(reference_run, tmp_path, patched("""
    original = ModelNew.forward
    def forward(self, x):
        out = original(self, x)
        x.zero_()
        return out
    ModelNew.forward = forward
    """))
    assert result.returncode == 0, result.stderr
    assert [e["inputs_mutated"] for e in result.of("case")] == [True, True, True]


def test_tuple_of_outputs_and_bad_return_type(runtime, reference_run, tmp_path):
    job, result = run_candidate(reference_run, tmp_path, patched("""
    original = ModelNew.forward
    def forward(self, x):
        y = original(self, x)
        return (y, y.sum())
    ModelNew.forward = forward
    """))
    assert result.returncode == 0, result.stderr
    y, total = read_outputs(runtime, job["output_dir"], 0, 1)
    assert torch.allclose(total, y.sum())

    _, result = run_candidate(reference_run, tmp_path / "second", patched("""
    def forward(self, x):
        return 3.0
    ModelNew.forward = forward
    """))
    assert result.returncode == 1
    assert result.of("error")[0]["phase"] == "case" and "float" in result.of("error")[0]["message"]


def test_exit_inside_forward_is_an_error_not_success(reference_run, tmp_path):
    _, result = run_candidate(reference_run, tmp_path, patched("""
    def forward(self, x):
        raise SystemExit(0)
    ModelNew.forward = forward
    """))
    assert result.returncode == 1
    assert result.of("error")[0]["type"] == "SystemExit"
    assert "done" not in result.names()


def test_a_large_case_is_re_run_on_input_set_0_only(runtime_lib, tmp_path):
    # large_case_bytes = 1 makes every case large (64 MiB of outputs by default).
    problem_file = write_source(tmp_path / "problem" / "reference.py", LINEAR_RELU)
    ref = dict(reference_job(tmp_path, runtime_lib, problem_file, [LINEAR_RELU_SHAPE], seeds=[11, 22, 33]),
               guard=True, large_case_bytes=1)
    assert run_runner("reference", ref, tmp_path).returncode == 0
    mutations = [os.path.exists(os.path.join(ref["sealed_dir"], "0", str(s), "mutation.arbb")) for s in range(3)]
    assert mutations == [True, False, False]
    solution_file = write_source(tmp_path / "work" / "kernel.py", CORRECT)
    job = dict(candidate_job(tmp_path, ref, solution_file), guard=True, large_case_bytes=1)
    result = run_runner("candidate", job, tmp_path)
    assert result.returncode == 0, result.stderr
    for name in ("mutation.arbb", "repeat.arbb"):
        assert [os.path.exists(os.path.join(job["output_dir"], "0", str(s), name)) for s in range(3)] == [True, False, False]
    with open(os.path.join(job["output_dir"], "0", "timed.json"), encoding="utf-8") as file:
        index = json.load(file)
    assert 1 <= len(index) <= 2  # one random timed output and the last
    assert result.of("timed")[0]["captures"] == index


def test_events_go_to_the_descriptor_the_orchestrator_names(tmp_path, monkeypatch):
    from arbiter_runner.events import EventLog, decode_frames
    read_end, write_end = os.pipe()
    monkeypatch.setenv("ARBITER_EVENTS_FD", str(write_end))
    log = EventLog(tmp_path / "events.jsonl")
    assert "ARBITER_EVENTS_FD" not in os.environ  # not passed on to child processes
    log.emit("start", mode="candidate")
    log.close()
    with os.fdopen(read_end, "rb") as channel:
        assert decode_frames(channel.read())[0]["event"] == "start"
    assert not (tmp_path / "events.jsonl").exists()


def test_mutation_sets_are_sealed_before_the_solution_is_imported(runtime, runtime_lib, tmp_path):
    problem_file = write_source(tmp_path / "problem" / "reference.py", LINEAR_RELU)
    ref = dict(reference_job(tmp_path, runtime_lib, problem_file, [LINEAR_RELU_SHAPE], seeds=[11, 22]), guard=True)
    assert run_runner("reference", ref, tmp_path).returncode == 0
    assert not os.path.exists(os.path.join(ref["exchange_dir"], "0", "0", "mutation.arbb"))
    sealed_dir = os.path.join(str(tmp_path), "cand", "sealed")
    # At import the solution looks for every file the orchestrator handed over.
    solution_file = write_source(tmp_path / "work" / "kernel.py", patched(f"""
    import os, sys
    SEEN = [os.path.join(d, f) for d, _, files in os.walk({sealed_dir!r}) for f in files]
    print("sealed files seen at import:", len(SEEN), file=sys.stderr)
    """))
    job = dict(candidate_job(tmp_path, ref, solution_file), guard=True)
    assert sorted(os.listdir(os.path.join(job["sealed_dir"], "0"))) == ["0", "1"]
    result = run_runner("candidate", job, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "sealed files seen at import: 0" in result.stderr
    assert os.listdir(job["sealed_dir"]) == []
    cases = result.of("case")
    assert [c["seed_idx"] for c in cases] == [0, 1] and all(c["fresh_call_ms"] > 0 for c in cases)
    for seed_idx in range(2):  # the re-run on the sealed set still follows it
        got = read_outputs(runtime, job["output_dir"], 0, seed_idx, "mutation.arbb")
        expected = read_outputs(runtime, ref["output_dir"], 0, seed_idx, "mutation.arbb")
        assert torch.allclose(got[0], expected[0], atol=1e-6)


def test_replacing_the_timed_capture_from_a_forward_changes_nothing_and_is_reported(reference_run, tmp_path):
    # The forward climbs to the harness's frames and replaces the Capture's `after` on the instance.
    source = patched("""
    import sys
    _plain = ModelNew.forward

    def forward(self, x):
        frame = sys._getframe(1)
        while frame is not None:
            capture = frame.f_locals.get("capture")
            if capture is not None and hasattr(capture, "kept"):
                capture.after = lambda *args: None
            frame = frame.f_back
        return _plain(self, x)
    ModelNew.forward = forward
    """)
    solution_file = write_source(tmp_path / "work" / "kernel.py", source)
    job = dict(candidate_job(tmp_path, reference_run, solution_file), guard=True)
    result = run_runner("candidate", job, tmp_path)
    assert result.returncode == 0, result.stderr
    patched_names = [name for e in result.of("integrity") for name in e["patched"]]
    assert "arbiter_runner.timing.Capture.after (instance)" in patched_names
    with open(os.path.join(job["output_dir"], "0", "timed.json"), encoding="utf-8") as file:
        assert len(json.load(file)) >= 1  # the capture bound before timing kept every output it chose


def start_gated(job, tmp_path):
    """The runner started behind a gate, as the orchestrator starts a candidate ahead of its turn:
    returns the process and the gate's write end."""
    import subprocess
    import sys
    from conftest import PYTHON_DIR
    job_path = tmp_path / "gated_job.json"
    job_path.write_text(json.dumps(job), encoding="utf-8")
    gate_read, gate_write = os.pipe()
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR, ARBITER_GATE_FD=str(gate_read))
    proc = subprocess.Popen([sys.executable, "-m", "arbiter_runner", "candidate", str(job_path)], env=env,
                            pass_fds=(gate_read,), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    os.close(gate_read)
    return proc, gate_write


def read_events(job):
    from arbiter_runner.events import read_events as read_log
    return read_log(job["events_file"])


def wait_for_event(job, name, seconds=120):
    import time
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if os.path.exists(job["events_file"]) and any(e["event"] == name for e in read_events(job)):
            return True
        time.sleep(0.05)
    return False


IMPORT_MARKER = """
import pathlib
pathlib.Path(__file__).with_name("imported").touch()
"""


def test_a_gated_candidate_imports_nothing_of_the_solution_until_its_gate_opens(reference_run, tmp_path):
    solution_file = write_source(tmp_path / "work" / "kernel.py", patched(IMPORT_MARKER))
    job = candidate_job(tmp_path, reference_run, solution_file)
    proc, gate = start_gated(job, tmp_path)
    try:
        assert wait_for_event(job, "start")
        proc_alive_after = proc.poll() is None
        assert proc_alive_after
        assert not (tmp_path / "work" / "imported").exists()
        os.write(gate, b"1")
    finally:
        os.close(gate)
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    names = [e["event"] for e in read_events(job)]
    assert names[:3] == ["start", "gate", "loaded"] and names[-1] == "done"
    assert (tmp_path / "work" / "imported").exists()


def test_a_gate_closed_without_opening_ends_the_runner_before_the_solution(reference_run, tmp_path):
    solution_file = write_source(tmp_path / "work" / "kernel.py", patched(IMPORT_MARKER))
    job = candidate_job(tmp_path, reference_run, solution_file)
    proc, gate = start_gated(job, tmp_path)
    os.close(gate)
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 3, stderr
    gate_events = [e for e in read_events(job) if e["event"] == "gate"]
    assert gate_events and gate_events[0]["opened"] is False
    assert not (tmp_path / "work" / "imported").exists()
