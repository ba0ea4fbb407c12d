"""The outside clock's account of every evaluation in results databases: per shape, the batch's
per-call wall and (on the CPU) per-call CPU time against what the candidate's record claims, the
reference's own ratio on each, the CPU ratio over the reference's (what the score's tolerance
compares, docs/guard.md "What a score counts"), the time the shape was scored by where the outside
account replaced the record, and the verdict. For the committed tables in docs/results/ and for
reading a run's margins. Then the clock's cost: the wall of every outside batch (the candidate's in
its evaluation folder's outside.json, the reference's once per reference folder, from run.json's
reference_dir) against the evaluations' wall (details.wall).

    python3 bench/outside_clock/report.py <results.db> [more.db]"""
import json
import os
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


WALL_QUERY = "SELECT e.details_json, e.artifacts_dir FROM evaluation e"


def _batches_ms(folder):
    """The summed wall of the outside batches in folder/outside.json; 0 where there is none."""
    try:
        with open(os.path.join(folder, "outside.json"), encoding="utf-8") as file:
            return sum(b.get("wall_ms", 0.0) for b in json.load(file).get("batches", []))
    except (OSError, ValueError):
        return 0.0


def _reference_dir(folder):
    try:
        with open(os.path.join(folder, "run.json"), encoding="utf-8") as file:
            return json.load(file).get("reference_dir") or None
    except (OSError, ValueError):
        return None


def cost(paths):
    """(evaluations, their wall s, candidate batches s, reference batches s) over the databases."""
    count, wall_s, candidate_s, reference_s, references = 0, 0.0, 0.0, 0.0, set()
    for db in paths:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            for details, folder in conn.execute(WALL_QUERY):
                wall = json.loads(details or "{}").get("wall") or {}
                spent = sum(v for k, v in wall.items() if k.endswith("_s") and not k.endswith(("_gated_s", "_process_s"))
                            and isinstance(v, (int, float)))
                if not spent or not folder:
                    continue
                count, wall_s = count + 1, wall_s + spent
                candidate_s += _batches_ms(folder) / 1000
                ref = _reference_dir(folder)
                if ref and ref not in references:
                    references.add(ref)
                    reference_s += _batches_ms(ref) / 1000
    return count, wall_s, candidate_s, reference_s


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
    count, wall_s, candidate_s, reference_s = cost(paths)
    if wall_s:
        print(f"\nOutside batches: {candidate_s:.2f} s of the candidates' and {reference_s:.2f} s of the references' "
              f"in {wall_s:.1f} s of {count} evaluations' wall ({100 * (candidate_s + reference_s) / wall_s:.1f}%).")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) if len(sys.argv) > 1 else 2)
