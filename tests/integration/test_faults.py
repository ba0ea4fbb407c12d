"""Each fault in tests/corpus/faults gets its own verdict and reason; the campaign goes on."""
import json
import os
import pathlib
import shutil
import sqlite3
import tomllib

import pytest

from conftest import ROOT

CORPUS = ROOT / "tests" / "corpus" / "faults"


def _cases():
    return sorted(p for p in CORPUS.iterdir() if (p / "expect.toml").exists())


def _solutions(tmp_path):
    root = tmp_path / "solutions" / "scale_add"
    for case in _cases():
        shutil.copytree(case, root / case.name, ignore=shutil.ignore_patterns("expect.toml"))
    return tmp_path / "solutions"


def _walls(db):
    """details.wall of every evaluation, keyed by model, in the order they ran."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT m.name, e.details_json FROM evaluation e JOIN solution s ON s.id = e.solution_id "
                            "JOIN model m ON m.id = s.model_id ORDER BY e.id").fetchall()
    return {name: json.loads(details).get("wall", {}) for name, details in rows}


# --prestart 2: each candidate process is started two evaluations ahead and waits behind its gate
# while a fault (a hang among them) runs; every verdict must come out the same.
@pytest.mark.parametrize("prestart", ["0", "2"])
def test_every_fault_gets_its_verdict_and_the_campaign_goes_on(arbiter, tmp_path, prestart):
    solutions = _solutions(tmp_path)
    arbiter.run("eval", str(CORPUS / "suite"), "--solutions", str(solutions), "--db", arbiter.db,
                "--device", arbiter.device, "--timeout", "40", "--max-time", "0.3", "--prestart", prestart)
    got = arbiter.evaluations()
    for case in _cases():
        expect = tomllib.loads((case / "expect.toml").read_text())
        row = got[("scale_add", case.name, 0)]
        assert row["verdict"] == expect["verdict"], f"{case.name}: {row}"
        assert expect.get("reason", "") in row["reason"], f"{case.name}: {row['reason']!r}"
        assert row["status"] == "done"
    walls = _walls(arbiter.db)
    ahead = [name for name, wall in walls.items() if wall.get("started_ahead")]
    if prestart == "0":
        assert ahead == []
    else:  # all but the first, which ran the reference before any could start
        assert sorted(ahead) == sorted(list(walls)[1:])
        assert all(walls[name]["candidate_gated_s"] > 0 for name in ahead)


def test_show_prints_verdict_reason_and_log(arbiter, tmp_path):
    solutions = _solutions(tmp_path)
    keep = {"raises", "correct"}
    for model in (solutions / "scale_add").iterdir():
        if model.name not in keep:
            shutil.rmtree(model)
    arbiter.run("eval", str(CORPUS / "suite"), "--solutions", str(solutions), "--db", arbiter.db,
                "--device", arbiter.device, "--max-time", "0.3")
    row = arbiter.evaluations()[("scale_add", "raises", 0)]
    shown = arbiter.run("show", str(row["id"]), "--db", arbiter.db).stdout
    assert "runtime_error" in shown and "kernel launch failed" in shown
    assert "re-run" in shown and "--models raises" in shown
    assert "Traceback" in shown  # the log tail carries the candidate's own traceback
    passed = arbiter.evaluations()[("scale_add", "correct", 0)]
    shown = arbiter.run("show", str(passed["id"]), "--db", arbiter.db).stdout
    assert "verdict    passed" in shown
    assert "eager" in shown and "candidate" in shown  # baseline and candidate timings per shape


def test_relative_database_path_works_from_any_folder(arbiter, tmp_path):
    """The README's command uses the default, relative `arbiter.db`."""
    solutions = _solutions(tmp_path)
    for model in (solutions / "scale_add").iterdir():
        if model.name != "correct":
            shutil.rmtree(model)
    arbiter.db = str(tmp_path / "arbiter.db")
    arbiter.run("eval", str(CORPUS / "suite"), "--solutions", str(solutions), "--device", arbiter.device,
                "--max-time", "0.3", cwd=tmp_path)
    assert arbiter.evaluations()[("scale_add", "correct", 0)]["verdict"] == "passed"


def test_data_dir_holds_runs_and_artifacts_apart_from_the_database(arbiter, tmp_path):
    """--data-dir: bundles, events and logs in their own folder (a tmpfs on a GPU machine)."""
    solutions = _solutions(tmp_path)
    for model in (solutions / "scale_add").iterdir():
        if model.name != "correct":
            shutil.rmtree(model)
    data = tmp_path / "scratch"
    arbiter.run("eval", str(CORPUS / "suite"), "--solutions", str(solutions), "--db", arbiter.db, "--device", arbiter.device,
                "--max-time", "0.3", "--data-dir", str(data))
    evaluation = arbiter.evaluations()[("scale_add", "correct", 0)]
    assert evaluation["verdict"] == "passed"
    assert not os.path.exists(arbiter.db + ".d")
    assert (data / "reference").is_dir() and any((data / "evals").iterdir())
    shown = arbiter.run("show", str(evaluation["id"]), "--db", arbiter.db).stdout
    assert str(data) in shown  # the artifacts are found where they went
