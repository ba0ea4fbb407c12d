"""The profiler references of a results.json taken again inside the GPU timer's step (stepped.py),
from the per-call kernel sums each baseline process stored (`sums_ms`): for results written before
the worker took its medians that way. One markdown row per workload and reference: the timer step
read per process, the per-process plain and stepped medians, and the median over processes of each.

    python3 bench/timing_fidelity/restep.py OUT/fidelity/results.json"""
import json
import statistics
import sys

import stepped

REFERENCES = ("cupti", "cupti_sustained")


def restep(sums_ms):
    """(step ns, plain median ns, stepped median ns) of one process's per-call sums."""
    sums_ns = [v * 1e6 for v in sums_ms]
    step = stepped.converted_step_ns(sums_ns)
    return step, statistics.median(sums_ns), stepped.stepped_median(stepped.snapped(sums_ns, step), step)


def main(path):
    with open(path, encoding="utf-8") as file:
        doc = json.load(file)
    print("| workload | reference | steps ns | per process, plain → stepped median ns | over processes, plain → stepped ns |")
    print("|---|---|---|---|---|")
    for workload, runs in doc["runs"].items():
        for method in REFERENCES:
            rows = [restep(run[method]["sums_ms"]) for run in runs["baselines"]
                    if (run.get(method) or {}).get("ok") and run[method].get("sums_ms")]
            if not rows:
                continue
            per_process = ", ".join(f"{plain:.1f} → {inside:.1f}" for _, plain, inside in rows)
            print(f"| {workload} | {method} | {', '.join(sorted({str(s) for s, _, _ in rows}))} | {per_process} | "
                  f"{statistics.median(p for _, p, _ in rows):.1f} → {statistics.median(i for _, _, i in rows):.1f} |")


if __name__ == "__main__":
    main(sys.argv[1])
