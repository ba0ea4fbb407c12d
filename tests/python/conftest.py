"""Helpers for the runner tests: tiny problems and solutions written into tmp dirs, jobs as
docs/protocol.md describes them, and the real `python3 -m arbiter_runner` run on them."""
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python"))
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)

FAST_TIMING = {"warmup_calls": 1, "min_samples": 2, "max_samples": 3, "min_time_s": 0.0, "max_time_s": 5.0,
               "target_rel_noise": 0.5, "l2_flush_bytes": 65536}

# KernelBench style: module constants, get_inputs/get_init_inputs without arguments.
LINEAR_RELU = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.linear(x))

batch = 4
in_features = 8
out_features = 6

def get_inputs():
    return [torch.randn(batch, in_features)]

def get_init_inputs():
    return [in_features, out_features]
"""

LINEAR_RELU_SHAPE = {"name": "3x5x2", "params": {"batch": 3, "in_features": 5, "out_features": 2}}


@pytest.fixture(scope="session")
def runtime_lib():
    path = os.environ.get("ARBITER_RUNTIME_LIB")
    if not path or not os.path.exists(path):
        pytest.fail("set ARBITER_RUNTIME_LIB to the built libarbiter_runtime.so (ctest does)")
    return path


@pytest.fixture(scope="session")
def runtime(runtime_lib):
    from arbiter_runner import runtime as rt
    return rt.load(runtime_lib)


def write_source(path, source):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as file:
        file.write(textwrap.dedent(source))
    return str(path)


def reference_job(root, runtime_lib, problem_file, shapes, seeds=(123, 456)):
    root = str(root)
    return {
        "mode": "reference", "device": "cpu", "runtime_lib": runtime_lib, "problem_file": problem_file,
        "exchange_dir": os.path.join(root, "ref", "exchange"), "output_dir": os.path.join(root, "ref", "expected"),
        "timing_dir": os.path.join(root, "ref", "timing"), "events_file": os.path.join(root, "ref", "events.jsonl"),
        "sealed_dir": os.path.join(root, "ref", "sealed"), "weights_seed": 42, "seeds": list(seeds),
        "num_seeds": len(seeds), "shapes": shapes, "timing": FAST_TIMING,
    }


def candidate_job(root, ref_job, solution_file, name="cand"):
    root = os.path.join(str(root), name)
    job = {key: ref_job[key] for key in ("device", "runtime_lib", "exchange_dir", "weights_seed", "num_seeds",
                                         "shapes", "timing")}
    job.update({"mode": "candidate", "solution_file": solution_file, "output_dir": os.path.join(root, "outputs"),
                "timing_dir": os.path.join(root, "timing"), "events_file": os.path.join(root, "events.jsonl"),
                "sealed_dir": os.path.join(root, "sealed")})
    # The orchestrator's share: the reference's sealed sets, copied into the candidate's own folder.
    if os.path.isdir(ref_job["sealed_dir"]):
        shutil.copytree(ref_job["sealed_dir"], job["sealed_dir"], dirs_exist_ok=True)
    return job


class RunResult:
    def __init__(self, proc, events):
        self.returncode = proc.returncode
        self.stderr = proc.stderr
        self.events = events

    def of(self, name):
        return [event for event in self.events if event["event"] == name]

    def names(self):
        return [event["event"] for event in self.events]


def run_runner(mode, job, tmp_dir):
    job_path = os.path.join(str(tmp_dir), f"{mode}_{os.path.basename(os.path.dirname(job['events_file']))}.json")
    with open(job_path, "w", encoding="utf-8") as file:
        json.dump(job, file)
    env = dict(os.environ)
    env["PYTHONPATH"] = PYTHON_DIR + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "arbiter_runner", mode, job_path], env=env, capture_output=True,
                          text=True, timeout=300)
    events = []
    if os.path.exists(job["events_file"]):
        from arbiter_runner.events import read_events
        events = read_events(job["events_file"])
    return RunResult(proc, events)


def read_outputs(runtime, root, shape_idx, seed_idx, name="outputs.arbb"):
    from arbiter_runner.bundle import read_bundle
    return read_bundle(runtime, os.path.join(root, str(shape_idx), str(seed_idx), name))
