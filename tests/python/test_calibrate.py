"""Calibrate mode: the copy and GEMM rates through the runtime's timing loop, one event each; what
cannot run on this machine is a skip with its reason, never a failure of the process."""
import os

from conftest import FAST_TIMING, run_runner


def calibrate_job(root, runtime_lib, **extra):
    root = str(root)
    return {"mode": "calibrate", "device": "cpu", "runtime_lib": runtime_lib,
            "events_file": os.path.join(root, "events.jsonl"), "timing_dir": os.path.join(root, "timing"),
            "copy_bytes": 1 << 20, "gemm_n": 64, "timing": FAST_TIMING, **extra}


def test_calibrate_measures_copy_and_gemm_rates(tmp_path, runtime_lib):
    job = calibrate_job(tmp_path, runtime_lib, dtypes=["float32", "bfloat16", "float8_e4m3fn", "complex_nonsense"])
    result = run_runner("calibrate", job, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.names()[-1] == "done"
    by_dtype = {event["dtype"]: event for event in result.of("calibration")}
    copy = by_dtype["uint8"]
    assert copy["kind"] == "copy" and copy["unit"] == "bytes_per_s"
    assert copy["work"] == 2 * (1 << 20) and copy["rate"] > 0 and copy["samples"] >= 2
    assert "times_ms" not in copy["timing"] and copy["timing"]["clock"] == "steady_clock"
    for dtype in ("float32", "bfloat16"):
        gemm = by_dtype[dtype]
        assert gemm["kind"] == "gemm" and gemm["size"] == 64 and gemm["work"] == 2 * 64 ** 3
        assert gemm["rate"] == gemm["work"] / (gemm["median_ms"] / 1e3)
    assert by_dtype["float8_e4m3fn"]["skipped"] == "float8 GEMMs are measured on cuda only"
    assert "has no dtype complex_nonsense" in by_dtype["complex_nonsense"]["skipped"]
    assert os.path.exists(os.path.join(job["timing_dir"], "gemm_float32.json"))


def test_calibrate_keeps_going_past_a_failing_measurement(tmp_path, runtime_lib):
    job = calibrate_job(tmp_path, runtime_lib, copy_bytes=-1, dtypes=["float32"])
    result = run_runner("calibrate", job, tmp_path)
    assert result.returncode == 0, result.stderr
    events = result.of("calibration")
    assert events[0]["kind"] == "copy" and "skipped" in events[0]
    assert events[1]["dtype"] == "float32" and events[1]["rate"] > 0
