"""`arbiter rejudge`: a campaign judged again after a rule changed, from what its evaluation folders
kept, without running any candidate again."""
import json
import os
import pathlib
import shutil
import sqlite3

from conftest import ROOT

CORPUS = ROOT / "tests" / "corpus" / "faults"


def _eval(arbiter, suite, solutions):
    return arbiter.run("eval", str(suite), "--solutions", str(solutions), "--db", arbiter.db, "--device", arbiter.device,
                       "--campaign", "rejudge-test", "--max-time", "0.3")


def _rejudge(arbiter, *args):
    return arbiter.run("rejudge", "--db", arbiter.db, "--campaign", "rejudge-test", *args)


def _stamps(folder):
    """mtime of what a candidate process writes: its log and its channel."""
    return {name: os.stat(folder / name).st_mtime_ns for name in ("log.txt", "events.jsonl")}


def test_a_rule_change_is_a_rejudge_not_a_rerun(arbiter, tmp_path):
    suite = tmp_path / "suite"
    shutil.copytree(CORPUS / "suite", suite)
    solutions = tmp_path / "solutions" / "scale_add"
    for name in ("correct", "wrong_values"):
        shutil.copytree(CORPUS / name, solutions / name, ignore=shutil.ignore_patterns("expect.toml"))
    shutil.copytree(CORPUS / "correct", solutions / "gone", ignore=shutil.ignore_patterns("expect.toml"))
    _eval(arbiter, suite, tmp_path / "solutions")
    before = arbiter.evaluations()
    correct = before[("scale_add", "correct", 0)]
    assert correct["verdict"] == "passed", correct
    assert before[("scale_add", "gone", 0)]["verdict"] == "passed", before[("scale_add", "gone", 0)]
    shown = arbiter.show(correct["id"])
    guard = shown["guard_version"]
    assert len(guard) == 16 and shown["guard_current"] is True
    folder = pathlib.Path(shown["artifacts_dir"])
    assert (folder / "run.json").is_file()
    stamps = _stamps(folder)
    gone = pathlib.Path(arbiter.show(before[("scale_add", "gone", 0)]["id"])["artifacts_dir"])
    shutil.rmtree(gone)

    # Nothing changed: every verdict stands.
    unchanged = _rejudge(arbiter)
    assert "0 changed, 2 confirmed, 1 cannot be re-judged" in unchanged.stdout, unchanged.stdout

    # The problem now forbids the call the passing solution makes.
    with open(suite / "scale_add" / "problem.toml", "a", encoding="utf-8") as toml:
        toml.write('\n[rules]\nforbid = ["torch.mul"]\n')
    changed = _rejudge(arbiter)
    out = changed.stdout
    assert "1 changed, 1 confirmed, 1 cannot be re-judged" in out, out
    row = next(line for line in out.splitlines() if line.strip().startswith(str(correct["id"]) + " "))
    assert "scale_add / correct" in row and "passed → rejected" in row and f"{guard} → {guard}" in row, out
    assert f"{before[('scale_add', 'gone', 0)]['id']}  scale_add / gone: cannot rejudge: evaluation folder" in out, out

    after = arbiter.evaluations()
    assert after[("scale_add", "correct", 0)]["verdict"] == "rejected"
    assert "B1" in after[("scale_add", "correct", 0)]["reason"], after[("scale_add", "correct", 0)]
    assert after[("scale_add", "wrong_values", 0)]["verdict"] == before[("scale_add", "wrong_values", 0)]["verdict"]
    assert after[("scale_add", "gone", 0)]["verdict"] == "passed"  # left as it was
    shown = arbiter.show(correct["id"])
    assert any(f["pattern"] == "B1" for f in shown["findings"]), shown["findings"]
    assert shown["details"]["rejudged"]["verdict"] == "passed"
    assert shown["speedup"] is None
    assert _stamps(folder) == stamps, "a candidate ran again"

    # An evaluation judged under another guard is marked on the leaderboard until re-judged.
    with sqlite3.connect(arbiter.db) as conn:
        conn.execute("UPDATE evaluation SET guard_version = '0000000000000000' WHERE id = ?", (correct["id"],))
    board = arbiter.leaderboard("--campaign", "rejudge-test")
    stale = {r["model"]: r["stale_guard"] for r in board["rows"]}
    assert stale == {"correct": 1, "wrong_values": 0, "gone": 0}, stale
    assert "correct (stale guard: 1)" in arbiter.run("leaderboard", "--db", arbiter.db, "--campaign", "rejudge-test").stdout
    doc = json.loads(_rejudge(arbiter, "--json").stdout)
    states = {e["model"]: e["state"] for e in doc["campaigns"][0]["evaluations"]}
    assert states == {"correct": "confirmed", "wrong_values": "confirmed", "gone": "cannot"}, states
    assert {r["model"]: r["stale_guard"] for r in arbiter.leaderboard("--campaign", "rejudge-test")["rows"]}["correct"] == 0
    assert _stamps(folder) == stamps
