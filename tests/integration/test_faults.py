"""Each fault in tests/corpus/faults gets its own verdict and reason; the campaign goes on."""
import json
import os
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


def _details(db, key):
    """details[key] of every evaluation, keyed by model, in the order they ran."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT m.name, e.details_json FROM evaluation e JOIN solution s ON s.id = e.solution_id "
                            "JOIN model m ON m.id = s.model_id ORDER BY e.id").fetchall()
    return {name: json.loads(details).get(key, {}) for name, details in rows}


# --prestart 2: each candidate process is started two evaluations ahead and waits behind its gate
# while a fault (a hang among them) runs, the first two beside the reference; every verdict must
# come out the same, with the build stage (--prebuild on) and without it.
@pytest.mark.parametrize("prestart,prebuild", [("0", "off"), ("2", "on")])
def test_every_fault_gets_its_verdict_and_the_campaign_goes_on(arbiter, tmp_path, prestart, prebuild):
    solutions = _solutions(tmp_path)
    arbiter.run("eval", str(CORPUS / "suite"), "--solutions", str(solutions), "--db", arbiter.db,
                "--device", arbiter.device, "--timeout", "40", "--max-time", "0.3", "--prestart", prestart,
                "--prebuild", prebuild)
    got = arbiter.evaluations()
    for case in _cases():
        expect = tomllib.loads((case / "expect.toml").read_text())
        row = got[("scale_add", case.name, 0)]
        assert row["verdict"] == expect["verdict"], f"{case.name}: {row}"
        assert expect.get("reason", "") in row["reason"], f"{case.name}: {row['reason']!r}"
        assert row["status"] == "done"
    # With the build stage, every candidate's gate opened after its solution's build; a build that
    # failed says why, as its candidate's verdict does. Without it, no evaluation waited for one.
    builds = _details(arbiter.db, "build")
    walls = _details(arbiter.db, "wall")
    if prebuild == "off":
        assert builds == {name: {} for name in walls}
        assert not [name for name, wall in walls.items() if "build_wait_s" in wall]
    else:
        for case in _cases():
            build = builds[case.name]
            assert build["by"] in ("stage", "turn") and build["waited_s"] >= 0, f"{case.name}: {build}"
            assert build["ok"] == (case.name != "compile_error"), f"{case.name}: {build}"
            assert walls[case.name]["build_wait_s"] == build["waited_s"]
        assert "SyntaxError" in builds["compile_error"]["error"]
    ahead = [name for name, wall in walls.items() if wall.get("started_ahead")]
    if prestart == "0":
        assert ahead == []
    else:
        assert sorted(ahead) == sorted(walls)
        assert all(walls[name]["candidate_gated_s"] > 0 for name in ahead)
    first = list(walls.values())[0]
    assert first["reference_s"] > 0 and first["reference_started_ahead"] is False
    assert all("reference_s" not in wall for wall in list(walls.values())[1:])


def _broken_reference_suite(tmp_path):
    """scale_add, and zz_broken: the same problem whose reference raises; two passing solutions each."""
    suite = tmp_path / "suite"
    shutil.copytree(CORPUS / "suite", suite)
    broken = suite / "zz_broken"
    shutil.copytree(suite / "scale_add", broken)
    (broken / "problem.toml").write_text((broken / "problem.toml").read_text().replace('"scale_add"', '"zz_broken"'))
    reference = (broken / "reference.py").read_text()
    (broken / "reference.py").write_text(reference.replace("return 2.0 * a + b", 'raise RuntimeError("the reference is broken")'))
    solutions = tmp_path / "solutions"
    for problem in ("scale_add", "zz_broken"):
        for model in ("correct", "zz_correct_after_faults"):
            shutil.copytree(CORPUS / model, solutions / problem / model, ignore=shutil.ignore_patterns("expect.toml"))
    return suite, solutions


# The next problem's reference and first candidate start behind their gates while the previous
# problem's last candidate runs; a reference that then fails ends its own problem's evaluations only.
def test_a_reference_started_ahead_that_fails_crashes_its_problem_and_no_other(arbiter, tmp_path):
    suite, solutions = _broken_reference_suite(tmp_path)
    arbiter.run("eval", str(suite), "--solutions", str(solutions), "--db", arbiter.db,
                "--device", arbiter.device, "--max-time", "0.3", "--prestart", "2")
    got = arbiter.evaluations()
    for model in ("correct", "zz_correct_after_faults"):
        assert got[("scale_add", model, 0)]["verdict"] == "passed", got
        broken = got[("zz_broken", model, 0)]
        assert broken["verdict"] == "crashed" and "reference failed" in broken["reason"], broken
        assert "the reference is broken" in broken["reason"]
    with sqlite3.connect(arbiter.db) as conn:
        walls = [json.loads(d).get("wall", {}) for (d,) in conn.execute("SELECT details_json FROM evaluation ORDER BY id")]
    assert [wall.get("started_ahead") for wall in walls[:2]] == [True, True]
    assert walls[0]["reference_started_ahead"] is False
    assert walls[2]["reference_started_ahead"] is True and walls[2]["reference_gated_s"] > 0
    assert "reference_s" not in walls[3]


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
