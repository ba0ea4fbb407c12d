"""Black-box tests of the real arbiter binary on the CPU (PyTorch on CPU)."""
import json
import os
import pathlib
import sqlite3
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _binary():
    path = os.environ.get("ARBITER_BIN")
    if not path:
        pytest.skip("ARBITER_BIN is not set (run through ctest)")
    return path


def pytest_runtest_logreport(report):
    """$ARBITER_FAILURE_LOG: each failure's report appended as it happens (also from xdist workers),
    so a GPU run cut short by its time limit still says what failed and why."""
    path = os.environ.get("ARBITER_FAILURE_LOG")
    if path and report.failed:
        with open(path, "a", encoding="utf-8") as log:
            log.write(f"===== {report.nodeid} ({report.when})\n{report.longreprtext}\n\n")


class Arbiter:
    def __init__(self, db):
        self.bin = _binary()
        self.db = str(db)
        # The same tests run on the CPU (label integration) and on a GPU (label gpu).
        self.device = os.environ.get("ARBITER_TEST_DEVICE", "cpu")

    def run(self, *args, check=True, timeout=1800, cwd=None, env=None):
        """env: variables to set on top of this process's environment (None removes one)."""
        base = dict(os.environ)
        base.setdefault("ARBITER_PYTHON", os.environ.get("ARBITER_PYTHON", "/usr/bin/python3"))
        # Peaks serve only the pages; test_calibrate.py measures them where it means to.
        base.setdefault("ARBITER_NO_CALIBRATE", "1")
        for name, value in (env or {}).items():
            if value is None:
                base.pop(name, None)
            else:
                base[name] = value
        env = base
        proc = subprocess.run([self.bin, *args], capture_output=True, text=True, env=env, timeout=timeout, cwd=cwd)
        if check and proc.returncode != 0:
            raise AssertionError(f"arbiter {' '.join(args)} exited {proc.returncode}\n"
                                 f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
        return proc

    def evaluations(self):
        """verdict, reason and ids of every evaluation, keyed by (problem, model, sample)."""
        with sqlite3.connect(self.db) as conn:
            rows = conn.execute(
                "SELECT p.key, m.name, s.sample, e.id, e.verdict, e.reason, e.status FROM evaluation e "
                "JOIN solution s ON s.id = e.solution_id JOIN problem p ON p.id = s.problem_id "
                "JOIN model m ON m.id = s.model_id").fetchall()
        return {(r[0], r[1], r[2]): {"id": r[3], "verdict": r[4], "reason": r[5], "status": r[6]} for r in rows}

    def show(self, evaluation_id):
        return json.loads(self.run("show", str(evaluation_id), "--db", self.db, "--json").stdout)

    def leaderboard(self, *args):
        return json.loads(self.run("leaderboard", "--db", self.db, "--json", *args).stdout)


@pytest.fixture
def arbiter(tmp_path):
    return Arbiter(tmp_path / "results.db")
