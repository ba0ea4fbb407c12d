"""The outside clock's account of every evaluation in results databases: per shape, the batch's
per-call wall against what the candidate's record claims, the reference's own ratio, and the
verdict. For the committed tables in docs/results/ and for reading a run's margins.

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
            for shape in json.loads(details or "{}").get("outside_clock", []):
                yield problem, model, verdict, shape


def main(paths):
    print("| problem | model | verdict | shape | calls | per call ms | claimed ms | ratio | allowed ms | reference ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for db in paths:
        for problem, model, verdict, s in rows(db):
            ratio = s["per_call_ms"] / s["claimed_ms"] if s["claimed_ms"] else float("nan")
            ref = s["reference_per_call_ms"] / s["reference_claimed_ms"] if s["reference_claimed_ms"] else float("nan")
            print(f"| {problem} | {model} | {verdict} | {s['shape']} | {s['calls']} | {s['per_call_ms']:.4g} | "
                  f"{s['claimed_ms']:.4g} | {ratio:.2f} | {s['allowed_ms']:.4g} | {ref:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) if len(sys.argv) > 1 else 2)
