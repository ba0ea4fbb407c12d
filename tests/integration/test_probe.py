"""The CUPTI evidence probe on a real GPU (label gpu; skipped on the CPU): a legitimate solution
runs with libarbiter_probe.so injected, leaves probe.json with its windows, passes, and its
details summarise the evidence (docs/probe.md)."""
import json
import os
import pathlib

import pytest

from conftest import ROOT


def _probe_library(arbiter):
    return pathlib.Path(arbiter.bin).resolve().parent.parent / "lib" / "libarbiter_probe.so"


def test_probe_evidence_of_a_legitimate_solution(arbiter):
    if arbiter.device != "cuda":
        pytest.skip("the probe needs CUDA (ARBITER_TEST_DEVICE=cuda)")
    arbiter.run("eval", str(ROOT / "suites" / "starter"), "--solutions", str(ROOT / "solutions" / "starter"),
                "--problems", "l1_softmax", "--models", "handwritten", "--db", arbiter.db, "--device", "cuda",
                "--max-time", "0.3")
    (row,) = arbiter.evaluations().values()
    shown = arbiter.show(row["id"])
    probe = shown["details"].get("probe")
    if not _probe_library(arbiter).exists():
        assert isinstance(probe, str) and probe.startswith("unavailable"), probe
        pytest.skip(f"libarbiter_probe.so not built: {probe}")
    assert row["verdict"] == "passed", row["reason"]
    assert isinstance(probe, dict), probe
    assert probe["status"] == "enabled"
    assert probe["totals"]["kernels"] > 0
    assert probe["totals"]["dropped_records"] == 0
    for shape in probe["shapes"]:
        assert {"case", "sample"} <= set(shape["labels"]), shape
        assert shape["timed_calls"] > 0
        assert shape["timed_without_kernels"] == 0, shape
        assert shape["timed_off_stream"] == 0, shape
        assert shape["timed_escaping"] == 0, shape
        assert shape["span_median_ms"] > 0
        assert shape["timer_misses_work"] is False, shape
    assert not [f for f in shown["findings"] if f["source"] == "probe"], shown["findings"]
    # Device time is the probe's CUPTI span on both sides of every speedup (docs/measurement.md).
    assert {m["method"] for m in shown["measurements"]} == {"cupti_span"}, shown["measurements"]
    evidence = json.loads((pathlib.Path(shown["artifacts_dir"]) / "outputs" / "probe.json").read_text())
    assert evidence["version"] == 1
    samples = [w for w in evidence["windows"] if w["label"] == "sample"]
    assert samples and all(w["harness_stream"] is not None for w in samples)
    assert all(w["kernels"] >= 1 and w["after_end_kernels"] == 0 for w in samples)
    assert os.path.basename(evidence["kernels"][0]["name"])  # demangled names are kept


def test_a_calls_copies_are_part_of_its_device_time(arbiter, tmp_path):
    """A call that clones its input (a device-to-device copy) and works in place on the clone: the
    copy is device work of the call, in each sample's busy time and span, as its kernels are."""
    if arbiter.device != "cuda":
        pytest.skip("the probe needs CUDA (ARBITER_TEST_DEVICE=cuda)")
    if not _probe_library(arbiter).exists():
        pytest.skip("libarbiter_probe.so not built")
    solutions = tmp_path / "solutions" / "scale_add" / "clone"
    solutions.mkdir(parents=True)
    (solutions / "kernel.py").write_text((ROOT / "tests" / "corpus" / "legit" / "clone_then_inplace" / "kernel.py").read_text())
    arbiter.run("eval", str(ROOT / "tests" / "corpus" / "hacks" / "suite"), "--solutions", str(tmp_path / "solutions"),
                "--problems", "scale_add", "--db", arbiter.db, "--device", "cuda", "--max-time", "0.2")
    (row,) = arbiter.evaluations().values()
    assert row["verdict"] == "passed", row["reason"]
    shown = arbiter.show(row["id"])
    evidence = json.loads((pathlib.Path(shown["artifacts_dir"]) / "outputs" / "probe.json").read_text())
    windows = dict(enumerate(evidence["windows"]))
    samples = [w for w in windows.values() if w["label"] == "sample"]
    assert samples and all(w["copies"] >= 1 and w["off_stream_transfers"] == 0 and w["after_end_transfers"] == 0
                           for w in samples), samples
    # The correctness calls come first, so their kernels are among those listed one by one: there
    # the copy's time is what the window's busy time holds beyond its two kernels (mul_, add_).
    kernel_ns = {}
    for kernel in evidence["kernels"]:
        if windows.get(kernel["window"], {}).get("label") == "case":
            kernel_ns[kernel["window"]] = kernel_ns.get(kernel["window"], 0) + kernel["end_ns"] - kernel["start_ns"]
    cases = [i for i in kernel_ns if windows[i]["kernels"] == 2 and windows[i]["copies"] >= 1]
    assert cases, [windows[i] for i in kernel_ns]
    assert all(windows[i]["busy_ns"] > kernel_ns[i]
               and windows[i]["span_ns"] >= windows[i]["busy_ns"] for i in cases), [windows[i] for i in cases]
