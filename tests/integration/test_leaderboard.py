"""`arbiter leaderboard`: rows per (model, harness), agent spend per solved problem from the
solutions' meta.json, and the timing methods it ranks by, in every output format."""
import csv
import io
import json
import shutil

from conftest import ROOT

CORPUS = ROOT / "tests" / "corpus" / "faults"
BASIC = {"harness": "arbiter-basic", "model": "agent", "turns": 4, "wall_s": 120.0,
         "tokens": {"input": 3000, "output": 600, "cache_read": 1200, "cache_write": 300, "total": 5100},
         "cost_usd": 0.05}
IMPORTED = {"harness": "claude-code", "tokens": {"input": 10, "output": 90, "cache_read": 0, "cache_write": 0},
            "cost_usd": None, "wall_s": 30.0}


def solutions(root, models):
    """root/scale_add/<model>/ from fault-corpus cases: {model: (case, meta or None, extra source line)}."""
    for model, (case, meta, extra) in models.items():
        target = root / "scale_add" / model
        shutil.copytree(CORPUS / case, target, ignore=shutil.ignore_patterns("expect.toml"))
        if extra:
            with open(target / "kernel.py", "a") as source:
                source.write(extra)
        if meta is not None:
            (target / "meta.json").write_text(json.dumps(meta))
    return root


def evaluate(arbiter, folder):
    arbiter.run("eval", str(CORPUS / "suite"), "--solutions", str(folder), "--db", arbiter.db, "--device", "cpu",
                "--campaign", "spend", "--max-time", "0.3")


def test_leaderboard_rows_per_harness_with_spend_per_solved(arbiter, tmp_path):
    evaluate(arbiter, solutions(tmp_path / "a", {"agent": ("correct", BASIC, ""), "hand": ("wrong_values", None, "")}))
    # The same model's kernel from another harness, imported later into the same campaign.
    evaluate(arbiter, solutions(tmp_path / "b", {"agent": ("correct", IMPORTED, "\n# imported from claude-code\n")}))

    doc = arbiter.leaderboard("--campaign", "spend")
    rows = {(r["model"], r["harness"]): r for r in doc["rows"]}
    assert set(rows) == {("agent", "arbiter-basic"), ("agent", "claude-code"), ("hand", "")}
    basic = rows[("agent", "arbiter-basic")]
    assert basic["passed"] == 1
    assert basic["tokens_per_solved"] == 3600 and basic["cache_tokens_per_solved"] == 1500
    assert basic["cost_per_solved_usd"] == 0.05 and basic["wall_s_per_solved"] == 120.0
    imported = rows[("agent", "claude-code")]
    assert imported["tokens_per_solved"] == 100 and imported["cache_tokens_per_solved"] == 0
    assert imported["cost_per_solved_usd"] is None and imported["wall_s_per_solved"] == 30.0
    hand = rows[("hand", "")]
    assert hand["passed"] == 0 and hand["tokens_per_solved"] is None and hand["wall_s_per_solved"] is None
    assert list(doc["timing_methods"]) == ["steady_clock"]
    assert doc["ranked_by"].startswith("speedup over eager PyTorch (the reference in a separate process): "
                                       "median host time (steady clock) per shape on cpu"), doc["ranked_by"]

    table = arbiter.run("leaderboard", "--db", arbiter.db, "--campaign", "spend").stdout
    assert "ranked by: speedup over eager PyTorch (the reference in a separate process)" in table
    assert "tokens/solved" in table and "agent time/solved" in table
    line = next(row for row in table.splitlines() if "agent · arbiter-basic" in row)
    for cell in ("3600", "1500", "$0.050", "2.0 min"):
        assert cell in line, (cell, line)
    assert "agent · claude-code" in table

    records = list(csv.DictReader(io.StringIO(arbiter.run("leaderboard", "--db", arbiter.db, "--campaign", "spend",
                                                          "--csv").stdout)))
    by_key = {(r["model"], r["harness"]): r for r in records}
    assert by_key[("agent", "arbiter-basic")]["tokens_per_solved"] == "3600"
    assert by_key[("agent", "claude-code")]["cost_per_solved_usd"] == ""

    markdown = arbiter.run("leaderboard", "--db", arbiter.db, "--campaign", "spend", "--md").stdout
    assert "| agent · claude-code |" in markdown and "agent time/solved" in markdown
    assert "- ranked by: speedup over eager PyTorch" in markdown
