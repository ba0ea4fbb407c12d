"""Wall time per evaluation with and without candidate processes started ahead (--prestart).

Copies each solution of a solutions folder into `--copies` models (m0, m1, …: one problem's
evaluations in a row, as when many models answer it), evaluates the suite once per --prestart
value into a database of its own, and prints one markdown row per value: evaluations, the median
and range of each evaluation's wall time without its problem's reference run (what one more
model's solution costs), the median time a candidate process stood started before its turn, and
the time evaluations waited for their solutions' builds (the GPU idle for compiles);
then, per problem and shape, the passing candidates' median device and host times and the
baseline's (the reference's timing) under each value (the next candidates start up while one is
timed, and beside the reference: what that does to their numbers).

    python3 bench/throughput/prestart.py --arbiter build/dev/bin/arbiter \\
        --suite tests/corpus/kernelbench/level1 --solutions tests/corpus/kernelbench/solutions \\
        --device cpu --copies 4 --prestart 0,2 --work /tmp/prestart"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import dbtable


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
    rows = dbtable.fetch(db, "SELECT e.wall_s, e.details_json, e.verdict FROM evaluation e ORDER BY e.id")
    out = []
    for wall_s, details, verdict in rows:
        wall = json.loads(details or "{}").get("wall", {})
        out.append({"after_reference_s": wall_s - wall.get("reference_s", 0.0), "verdict": verdict,
                    "gated_s": wall.get("candidate_gated_s", 0.0), "ahead": bool(wall.get("started_ahead")),
                    "build_wait_s": wall.get("build_wait_s", 0.0)})
    return out


def _times(db):
    """{(problem, shape, role): ([median_ms…], [host_median_ms…])} of the passing evaluations: the
    candidates', and the baseline's (the reference's own timing, once per problem)."""
    rows = dbtable.fetch(db, "SELECT p.key, m.shape, m.role, m.median_ms, m.host_median_ms FROM measurement m "
                             "JOIN evaluation e ON e.id = m.evaluation_id JOIN solution s ON s.id = e.solution_id "
                             "JOIN problem p ON p.id = s.problem_id WHERE e.verdict = 'passed'")
    out = {}
    seen_baselines = set()
    for problem, shape, role, median_ms, host_ms in rows:
        if role == "baseline":  # every evaluation of a problem stores its reference's: count it once
            if (problem, shape) in seen_baselines:
                continue
            seen_baselines.add((problem, shape))
        device, host = out.setdefault((problem, shape, role), ([], []))
        device.append(median_ms)
        if host_ms is not None:
            host.append(host_ms)
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
    return time.monotonic() - started, _walls(db), _times(db)


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
    print("| --prestart | evaluations | verdicts | campaign s | wall per evaluation without the reference, median (range) s "
          "| started ahead | gated median s | waited for builds, s in all (evaluations) |")
    print("|---:|---:|---|---:|---|---:|---:|---:|")
    times = {}
    for prestart in (int(v) for v in args.prestart.split(",")):
        campaign_s, walls, times[prestart] = _run(args, prestart, solutions)
        after = [w["after_reference_s"] for w in walls]
        verdicts = ", ".join(f"{v} {sum(w['verdict'] == v for w in walls)}" for v in sorted({w["verdict"] for w in walls}))
        ahead = [w for w in walls if w["ahead"]]
        gated = statistics.median(w["gated_s"] for w in ahead) if ahead else 0.0
        waits = [w["build_wait_s"] for w in walls if w["build_wait_s"] >= 0.01]
        print(f"| {prestart} | {len(walls)} | {verdicts} | {campaign_s:.1f} | {statistics.median(after):.2f} "
              f"({min(after):.2f}–{max(after):.2f}) | {len(ahead)} | {gated:.2f} | {sum(waits):.1f} ({len(waits)}) |", flush=True)

    def median(values):
        return f"{statistics.median(values):.4f}" if values else "—"

    print("\n| problem | shape | timed | " + " | ".join(f"--prestart {p}: time ms (host ms)" for p in times) + " |")
    print("|---|---|---|" + "---:|" * len(times))
    for key in sorted({key for per in times.values() for key in per}):
        cells = [f"{median(per.get(key, ([], []))[0])} ({median(per.get(key, ([], []))[1])})" for per in times.values()]
        print(f"| {key[0]} | {key[1]} | {key[2]} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
