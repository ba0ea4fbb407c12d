"""Wall time per evaluation with and without candidate processes started ahead (--prestart).

Copies each solution of a solutions folder into `--copies` models (m0, m1, …: one problem's
evaluations in a row, as when many models answer it), evaluates the suite once per --prestart
value into a database of its own, and prints one markdown row per value: evaluations, the median
and range of each evaluation's wall time without its problem's reference run (what one more
model's solution costs), and the median time a candidate process stood started before its turn.

    python3 bench/throughput/prestart.py --arbiter build/dev/bin/arbiter \\
        --suite tests/corpus/kernelbench/level1 --solutions tests/corpus/kernelbench/solutions \\
        --device cpu --copies 4 --prestart 0,2 --work /tmp/prestart"""
import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time


def _copies(solutions, copies, into):
    """into/<problem>/m<i>/: every model folder of every problem, `copies` times over."""
    shutil.rmtree(into, ignore_errors=True)
    for problem in sorted(os.listdir(solutions)):
        models = sorted(os.listdir(os.path.join(solutions, problem)))
        for copy_idx in range(copies):
            source = os.path.join(solutions, problem, models[copy_idx % len(models)])
            shutil.copytree(source, os.path.join(into, problem, f"m{copy_idx}"))
    return into


def _walls(db):
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT e.wall_s, e.details_json, e.verdict FROM evaluation e ORDER BY e.id").fetchall()
    out = []
    for wall_s, details, verdict in rows:
        wall = json.loads(details or "{}").get("wall", {})
        out.append({"after_reference_s": wall_s - wall.get("reference_s", 0.0), "verdict": verdict,
                    "gated_s": wall.get("candidate_gated_s", 0.0), "ahead": bool(wall.get("started_ahead"))})
    return out


def _run(args, prestart, solutions):
    work = os.path.join(args.work, f"prestart{prestart}")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    db = os.path.join(work, "r.db")
    command = [args.arbiter, "eval", args.suite, "--solutions", solutions, "--db", db, "--device", args.device,
               "--prestart", str(prestart), "--no-calibrate"]
    started = time.monotonic()
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(command)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    return time.monotonic() - started, _walls(db)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--arbiter", required=True)
    parser.add_argument("--suite", required=True)
    parser.add_argument("--solutions", required=True)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--prestart", default="0,2", help="comma-separated --prestart values")
    parser.add_argument("--work", default="/tmp/prestart")
    args = parser.parse_args()
    solutions = _copies(args.solutions, args.copies, os.path.join(args.work, "solutions"))
    print("| --prestart | evaluations | verdicts | campaign s | wall per evaluation without the reference, median (range) s | started ahead | gated median s |")
    print("|---:|---:|---|---:|---|---:|---:|")
    for prestart in (int(v) for v in args.prestart.split(",")):
        campaign_s, walls = _run(args, prestart, solutions)
        after = [w["after_reference_s"] for w in walls]
        verdicts = ", ".join(f"{v} {sum(w['verdict'] == v for w in walls)}" for v in sorted({w["verdict"] for w in walls}))
        ahead = [w for w in walls if w["ahead"]]
        gated = statistics.median(w["gated_s"] for w in ahead) if ahead else 0.0
        print(f"| {prestart} | {len(walls)} | {verdicts} | {campaign_s:.1f} | {statistics.median(after):.2f} "
              f"({min(after):.2f}–{max(after):.2f}) | {len(ahead)} | {gated:.2f} |", flush=True)


if __name__ == "__main__":
    main()
