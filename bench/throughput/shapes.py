"""Per-shape device times of the passing evaluations of a results database, eager (the baseline)
beside the candidate, as a markdown table:

    python3 bench/throughput/shapes.py results.db"""
import dbtable

QUERY = """SELECT p.key, m.name, me.shape, me.role, me.median_ms, me.speedup, me.method, me.evaluation_id
           FROM measurement me JOIN evaluation e ON e.id = me.evaluation_id JOIN solution s ON s.id = e.solution_id
           JOIN problem p ON p.id = s.problem_id JOIN model m ON m.id = s.model_id
           WHERE e.verdict = 'passed' ORDER BY me.evaluation_id, me.id"""


def rows(db):
    """The table's lines for one database."""
    measurements = dbtable.fetch(db, QUERY)
    baselines = {(eval_id, shape): ms for _, _, shape, role, ms, _, _, eval_id in measurements if role == "baseline"}
    lines = ["| problem | model | shape | eager ms | candidate ms | speedup | method |",
             "|---|---|---|---:|---:|---:|---|"]
    for problem, model, shape, role, ms, speedup, method, eval_id in measurements:
        if role == "baseline":
            continue
        eager = baselines.get((eval_id, shape))
        eager_said = "—" if eager is None else f"{eager:.4f}"
        speedup_said = "—" if eager is None or speedup is None else f"{speedup:.2f}×"
        lines.append(f"| {problem} | {model} | {shape} | {eager_said} | {ms:.4f} | {speedup_said} | {method} |")
    return lines


if __name__ == "__main__":
    dbtable.main(rows, __doc__)
