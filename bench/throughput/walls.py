"""Where each evaluation of a results database spent its wall time (details.wall), one markdown row
per evaluation, and the reason of each that neither passed nor failed its outputs:

    python3 bench/throughput/walls.py results.db"""
import json

import dbtable

QUERY = """SELECT e.id, p.key, m.name, e.verdict, e.speedup, e.wall_s, e.details_json, e.reason
           FROM evaluation e JOIN solution s ON s.id = e.solution_id JOIN problem p ON p.id = s.problem_id
           JOIN model m ON m.id = s.model_id ORDER BY e.id"""
PARTS = ("reference_s", "build_wait_s", "candidate_process_s", "judge_s", "prune_s")


def _seconds(wall, key):
    return f"{wall[key]:.1f}" if key in wall else "—"


def rows(db):
    """The table's lines for one database."""
    evaluations = dbtable.fetch(db, QUERY)
    lines = ["| id | problem | model | verdict | speedup | wall s | " + " | ".join(PARTS) + " | probe |",
             "|---|---|---|---|---:|---:|" + "---:|" * len(PARTS) + "---|"]
    for eval_id, problem, model, verdict, speedup, wall_s, details_json, reason in evaluations:
        details = json.loads(details_json or "{}")
        wall = details.get("wall", {})
        probe = details.get("probe")
        probe_said = "object" if isinstance(probe, dict) else str(probe)[:30]
        speedup_said = "—" if speedup is None else f"{speedup:.2f}"
        lines.append(f"| {eval_id} | {problem} | {model} | {verdict} | {speedup_said} | {wall_s:.1f} | "
                     + " | ".join(_seconds(wall, key) for key in PARTS) + f" | {probe_said} |")
        if verdict not in ("passed", "incorrect"):
            lines.append(f"  reason: {(reason or '')[:300]}")
    return lines


if __name__ == "__main__":
    dbtable.main(rows, __doc__)
