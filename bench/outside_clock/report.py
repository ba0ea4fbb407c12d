"""The outside clock's account of every evaluation in results databases: per shape, the batch's
per-call wall and (on the CPU) per-call CPU time against what the candidate's record claims, the
reference's own ratio on each, the CPU ratio over the reference's (what the score's tolerance
compares, docs/guard.md "What a score counts"), the time the shape was scored by where the outside
account replaced the record, and the verdict. For the committed tables in docs/results/ and for
reading a run's margins.

    python3 bench/outside_clock/report.py <results.db> [more.db]"""
import json
import sqlite3
import sys

QUERY = """SELECT p.key, m.name, e.verdict, e.details_json FROM evaluation e
           JOIN solution s ON s.id = e.solution_id JOIN problem p ON p.id = s.problem_id
           JOIN model m ON m.id = s.model_id ORDER BY p.key, m.name"""


def rows(db):
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        for problem, model, verdict, details in conn.execute(QUERY):
            parsed = json.loads(details or "{}")
            scored = {entry["shape"]: entry["confirmed_ms"] for entry in parsed.get("outside_scored", [])}
            for shape in parsed.get("outside_clock", []):
                yield problem, model, verdict, shape, scored.get(shape["shape"])


def _witness(s, name):
    """(per call, allowed, reference ratio) of one witness, or None where the shape has none."""
    w = s.get(name)
    if not isinstance(w, dict):
        return None
    ref = w["reference_per_call_ms"] / s["reference_claimed_ms"] if s["reference_claimed_ms"] else float("nan")
    return w["per_call_ms"], w["allowed_ms"], ref


def _cells(s, name):
    w = _witness(s, name)
    if w is None:
        return "— | — | — | —"
    per_call, allowed, ref = w
    ratio = per_call / s["claimed_ms"] if s["claimed_ms"] else float("nan")
    return f"{per_call:.4g} | {ratio:.2f} | {allowed:.4g} | {ref:.2f}"


def _over_reference(s):
    """The CPU ratio over the reference's own: 1 for a record as honest as the reference's."""
    w = _witness(s, "cpu")
    if w is None or not s["claimed_ms"] or not w[2]:
        return "—"
    return f"{w[0] / s['claimed_ms'] / w[2]:.2f}"


def main(paths):
    print("| problem | model | verdict | shape | calls | claimed ms | wall per call ms | ratio | allowed ms | "
          "reference ratio | cpu per call ms | ratio | allowed ms | reference ratio | cpu ratio over reference's | "
          "scored by ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for db in paths:
        for problem, model, verdict, s, scored in rows(db):
            print(f"| {problem} | {model} | {verdict} | {s['shape']} | {s['calls']} | {s['claimed_ms']:.4g} | "
                  f"{_cells(s, 'wall')} | {_cells(s, 'cpu')} | {_over_reference(s)} | "
                  f"{'—' if scored is None else f'{scored:.4g}'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) if len(sys.argv) > 1 else 2)
