"""Fixtures for the server tests: a small CPU campaign and `arbiter serve` over its database."""
import json
import os
import pathlib
import shutil
import subprocess
import urllib.error
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus" / "faults"
META = {"org": "arbiter", "harness": "handwritten", "tokens": {"input": 1000, "output": 500}, "cost_usd": 0.02,
        "wall_s": 42.0}


def binary():
    path = os.environ.get("ARBITER_BIN")
    if not path:
        pytest.skip("ARBITER_BIN is not set (run through ctest)")
    return path


def env():
    return dict(os.environ, ARBITER_PYTHON=os.environ.get("ARBITER_PYTHON", "/usr/bin/python3"))


def make_solutions(root, names, meta_for=("correct",)):
    """Copies fault-corpus solutions under root/scale_add/<name>; `copyN` names copy `correct`."""
    for name in names:
        source = CORPUS / ("correct" if name.startswith("copy") else name)
        target = root / "scale_add" / name
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("expect.toml"))
        if name in meta_for:
            (target / "meta.json").write_text(json.dumps(META))
    return root


def eval_args(db, solutions, campaign):
    return [binary(), "eval", str(CORPUS / "suite"), "--solutions", str(solutions), "--db", str(db),
            "--device", "cpu", "--campaign", campaign, "--max-time", "0.3"]


def run(*args, check=True):
    proc = subprocess.run([binary(), *args], capture_output=True, text=True, env=env(), timeout=900)
    if check and proc.returncode != 0:
        raise AssertionError(f"arbiter {' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


class Server:
    """`arbiter serve` on a free port; stopped with SIGTERM."""

    def __init__(self, db):
        self.proc = subprocess.Popen([binary(), "serve", "--db", str(db), "--port", "0", "--poll-ms", "100"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
        line = self.proc.stdout.readline()
        assert line.startswith("listening on "), f"serve printed {line!r}: {self.proc.stderr.read()}"
        self.url = line.split("listening on ", 1)[1].strip()

    def get(self, path):
        """(status, content type, body text) of GET path; errors are answers, not exceptions."""
        try:
            with urllib.request.urlopen(self.url + path, timeout=30) as resp:
                return resp.status, resp.headers.get("Content-Type", ""), resp.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, err.headers.get("Content-Type", ""), err.read().decode()

    def json(self, path):
        status, kind, body = self.get(path)
        assert status == 200 and kind.startswith("application/json"), (path, status, body)
        return json.loads(body)

    def stop(self):
        self.proc.terminate()
        assert self.proc.wait(timeout=10) == 0, "serve did not stop cleanly on SIGTERM"


@pytest.fixture(scope="session")
def campaign_db(tmp_path_factory):
    """A finished campaign: correct (with meta.json tokens and cost), wrong_values, compile_error."""
    root = tmp_path_factory.mktemp("campaign")
    solutions = make_solutions(root / "solutions", ["correct", "wrong_values", "compile_error"])
    db = root / "results.db"
    subprocess.run(eval_args(db, solutions, "web-test"), check=True, capture_output=True, env=env(), timeout=900)
    return db


@pytest.fixture(scope="session")
def server(campaign_db):
    srv = Server(campaign_db)
    yield srv
    srv.stop()
