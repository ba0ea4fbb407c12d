"""Black-box tests of `arbiter agent` and `arbiter check` against scripted model endpoints on loopback."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SUITE = ROOT / "tests" / "corpus" / "faults" / "suite"
CORRECT = (ROOT / "tests" / "corpus" / "faults" / "correct" / "kernel.py").read_text()
sys.path.insert(0, str(HERE))

from scripted_server import ScriptedServer  # noqa: E402


def binary():
    path = os.environ.get("ARBITER_BIN")
    if not path:
        pytest.skip("ARBITER_BIN is not set (run through ctest)")
    return path


def agent_args(server, model, out, *extra):
    return [binary(), "agent", "run", "--model", model, "--api", server.api, "--endpoint", server.endpoint,
            "--suite", str(SUITE), "--out", str(out), "--device", "cpu", "--retry-base", "0.01",
            "--python", os.environ.get("ARBITER_PYTHON", "/usr/bin/python3"), *extra]


def run_agent(server, model, out, *extra, check=True):
    env = dict(os.environ, ARBITER_LOG="warn")
    proc = subprocess.run(agent_args(server, model, out, *extra), capture_output=True, text=True, env=env, timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(f"agent run exited {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def session_files(out, model, problem="scale_add"):
    folder = pathlib.Path(out) / problem / model
    meta = json.loads((folder / "meta.json").read_text())
    trace = [json.loads(line) for line in (folder / "trace.jsonl").read_text().splitlines() if line.strip()]
    return folder, meta, trace


def call(name, **arguments):
    return (name, json.dumps(arguments))


@pytest.fixture
def servers():
    started = []

    def make(api, script):
        server = ScriptedServer(api, script)
        started.append(server)
        return server

    yield make
    for server in started:
        server.close()
