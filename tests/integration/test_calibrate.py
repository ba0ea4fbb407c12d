"""`arbiter calibrate` and eval's calibration (black box): the measured peaks land in the hardware
record's JSON, keyed by the unchanged fingerprint, and the hardware page says "calibrated"."""
import json
import os
import shutil
import sqlite3

from conftest import ROOT

FAULTS = ROOT / "tests" / "corpus" / "faults"


def _hardware_rows(db):
    with sqlite3.connect(db) as conn:
        return [(fingerprint, json.loads(text)) for fingerprint, text in
                conn.execute("SELECT fingerprint, json FROM hardware ORDER BY id").fetchall()]


def _assert_peaks(peaks, device):
    assert peaks["bytes_per_s"] > 0
    dtypes = ["float32", "bfloat16"] + (["float16"] if device == "cuda" else [])
    for dtype in dtypes:
        assert peaks["flops_per_s"][dtype] > 0, dtype
    if device == "cuda":  # measured where torch._scaled_mm runs, else skipped with a reason
        assert "float8_e4m3fn" in peaks["flops_per_s"] or peaks["skipped"]["float8_e4m3fn"]
        assert "tf32" in peaks["skipped"]
    for m in peaks["measurements"]:
        assert m["samples"] >= 1 and m["median_ms"] > 0 and m["rate"] > 0


def test_calibrate_stores_peaks_with_the_hardware(arbiter, tmp_path):
    doc = json.loads(arbiter.run("calibrate", "--device", arbiter.device, "--db", arbiter.db, "--json", timeout=300).stdout)
    _assert_peaks(doc["peaks"], arbiter.device)
    rows = _hardware_rows(arbiter.db)
    assert len(rows) == 1
    fingerprint, stored = rows[0]
    assert fingerprint == doc["fingerprint"]
    assert stored["peaks"]["bytes_per_s"] == doc["peaks"]["bytes_per_s"]
    assert stored["python"]["path"]  # the doctor's findings are kept beside the peaks
    assert os.path.exists(f"{arbiter.db}.d/calibration/{fingerprint[:12]}/events.jsonl")

    text = arbiter.run("calibrate", "--device", arbiter.device, "--db", arbiter.db, timeout=300).stdout
    assert text.startswith(f"calibrated {arbiter.device} ") and "copy" in text and "gemm float32" in text
    rows = _hardware_rows(arbiter.db)
    assert [r[0] for r in rows] == [fingerprint]  # measured again, same record

    arbiter.run("site", str(tmp_path / "site"), "--db", arbiter.db)
    page = (tmp_path / "site" / "hardware" / "index.html").read_text()
    assert "<td>calibrated</td>" in page and "not calibrated" not in page


def test_eval_calibrates_on_cpu_only_when_asked(arbiter, tmp_path):
    solutions = tmp_path / "solutions" / "scale_add" / "correct"
    shutil.copytree(FAULTS / "correct", solutions, ignore=shutil.ignore_patterns("expect.toml"))
    args = ["eval", str(FAULTS / "suite"), "--solutions", str(tmp_path / "solutions"), "--db", arbiter.db,
            "--device", "cpu", "--campaign", "calibration-test", "--max-time", "0.2", "--no-sandbox"]
    calibrating = {"ARBITER_NO_CALIBRATE": None}
    arbiter.run(*args, env=calibrating)
    assert "peaks" not in _hardware_rows(arbiter.db)[0][1]  # cpu, not asked: no calibration
    arbiter.run(*args, "--calibrate", env=calibrating)  # the campaign resumes (nothing left to run), the peaks are measured
    rows = _hardware_rows(arbiter.db)
    assert len(rows) == 1
    _assert_peaks(rows[0][1]["peaks"], "cpu")
