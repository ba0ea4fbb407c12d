"""A campaign killed halfway resumes without redoing finished evaluations."""
import os
import shutil
import signal
import subprocess
import time

from conftest import ROOT

CORPUS = ROOT / "tests" / "corpus" / "faults"


def test_killed_campaign_resumes_without_redoing_finished_work(arbiter, tmp_path):
    root = tmp_path / "solutions" / "scale_add"
    for name in ("correct", "wrong_values", "zz_correct_after_faults"):
        shutil.copytree(CORPUS / name, root / name, ignore=shutil.ignore_patterns("expect.toml"))
    for copy_idx in range(3):
        shutil.copytree(CORPUS / "correct", root / f"copy{copy_idx}", ignore=shutil.ignore_patterns("expect.toml"))
    args = [arbiter.bin, "eval", str(CORPUS / "suite"), "--solutions", str(tmp_path / "solutions"),
            "--db", arbiter.db, "--device", arbiter.device, "--campaign", "resume-test", "--max-time", "0.3"]
    env = dict(os.environ, ARBITER_PYTHON=os.environ.get("ARBITER_PYTHON", "/usr/bin/python3"))
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 600
    done = {}
    while time.time() < deadline and proc.poll() is None:
        if os.path.exists(arbiter.db):
            try:
                done = {k: v for k, v in arbiter.evaluations().items() if v["status"] == "done"}
            except Exception:  # the database may be mid-creation
                done = {}
            if len(done) >= 2:
                break
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert 2 <= len(done) < 6, f"the campaign was not caught halfway: {len(done)} finished"

    second = arbiter.run(*args[1:])
    after = arbiter.evaluations()
    assert len(after) == 6 and all(v["status"] == "done" for v in after.values())
    for key, row in done.items():
        assert after[key]["id"] == row["id"] and after[key]["verdict"] == row["verdict"]
    assert f"{len(done)} finished earlier" in second.stderr
    board = arbiter.leaderboard("--campaign", "resume-test")
    assert {r["model"] for r in board["rows"]} == {"correct", "wrong_values", "zz_correct_after_faults",
                                                   "copy0", "copy1", "copy2"}
