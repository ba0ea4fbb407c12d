"""A KernelBench-format folder (levelN/*.py, module-level shape constants, no problem.toml) runs as
a suite: one correct and one wrong solution get their verdicts, and `suite check` accepts it."""
import json

from conftest import ROOT

SAMPLE = ROOT / "tests" / "corpus" / "kernelbench"


def test_kernelbench_folder_evaluates_as_a_suite(arbiter):
    arbiter.run("eval", str(SAMPLE / "level1"), "--solutions", str(SAMPLE / "solutions"), "--db", arbiter.db,
                "--device", arbiter.device, "--timeout", "120", "--max-time", "0.2")
    got = arbiter.evaluations()
    assert got[("1_Scaled_Tanh", "handwritten", 0)]["verdict"] == "passed", got
    wrong = got[("2_Row_Max", "handwritten", 0)]
    assert wrong["verdict"] == "incorrect", wrong


def test_kernelbench_folder_passes_suite_check(arbiter, tmp_path):
    proc = arbiter.run("suite", "check", str(SAMPLE / "level1"), "--device", arbiter.device, "--json",
                       "--repeats", "2", "--work", str(tmp_path / "w"))
    report = json.loads(proc.stdout)
    assert report["ok"] and {p["id"] for p in report["problems"]} == {"1_Scaled_Tanh", "2_Row_Max"}, report
