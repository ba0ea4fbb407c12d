"""The probe's marker token and environment without a GPU (docs/probe.md, "Marker API"): the probe
beside the runtime is loaded and initialised in a fresh process as the driver would (CUPTI then
reports its calls as errors, which the evidence lists); the runtime, loaded next, claims the token
by the probe's soname; a second claim and markers without the token are counted, the runtime's
markers open windows, and the variables that name the probe are gone from the environment."""
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import ctypes, os, sys
    probe_path, runtime_path = sys.argv[1], sys.argv[2]
    probe = ctypes.CDLL(probe_path)
    probe.InitializeInjection()
    libc = ctypes.CDLL(None)
    libc.getenv.restype = ctypes.c_char_p
    assert libc.getenv(b"CUDA_INJECTION64_PATH") is None
    assert libc.getenv(b"ARBITER_PROBE_OUT") is None
    runtime = ctypes.CDLL(runtime_path)  # claims the token as it loads
    token = ctypes.c_uint64(0)
    assert probe.arbiter_probe_claim(ctypes.byref(token)) == -1 and token.value == 0
    args = (b"sample", ctypes.c_int64(0), ctypes.c_int64(0), ctypes.c_uint64(0))
    assert probe.arbiter_probe_begin(ctypes.c_uint64(12345), *args) == -1
    assert probe.arbiter_probe_end(ctypes.c_uint64(0)) == -1
    assert runtime.arb_probe_begin(*args) == 1
    assert runtime.arb_probe_end() == 1
""")


def test_markers_without_the_runtimes_token_are_counted_and_ignored(runtime_lib, tmp_path):
    probe_lib = pathlib.Path(runtime_lib).parent / "libarbiter_probe.so"
    if not probe_lib.exists():
        pytest.skip("libarbiter_probe.so not built (CUPTI not found at build time)")
    out = tmp_path / "probe.json"
    env = dict(os.environ, CUDA_INJECTION64_PATH=str(probe_lib), ARBITER_PROBE_OUT=str(out))
    env.pop("ARBITER_PROBE_KEY", None)
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(probe_lib), runtime_lib], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    evidence = json.loads(out.read_text())
    assert evidence["witness"]["forged_markers"] == 2
    assert evidence["witness"]["refused_claims"] == 1
    assert [w["label"] for w in evidence["windows"]] == ["sample"]
    assert evidence["witness"]["checks"] == 2
