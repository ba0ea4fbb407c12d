"""Every process history of a list (histories.txt), each in fresh processes of history.py, and the
table of the loop's times after each: what a process did before arbiter's timing loop against the
kernel time the profiler reads in it (docs/results/2026-12-05-timing-fidelity.md, "Process history and the tiny kernel").

  python3 bench/timing_fidelity/histories.py --runtime-lib <build>/lib/libarbiter_runtime.so \\
      --workload tiny --procs 2 --out OUT

Writes OUT/results.json (every process's loops) and OUT/results.md, both after each process, and
nothing else: each process's own file is folded into results.json and removed, so that a run cut
short leaves two files to fetch, not one per process."""
import argparse
import json
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import files  # noqa: E402
import history  # noqa: E402
import workloads  # noqa: E402


def read_histories(path):
    """The histories of a list file, each a list of step names; ValueError naming the file and line
    of one that is not history.py's steps or has no loop."""
    histories = []
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, 1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            try:
                steps = history.parse_steps(text)
            except ValueError as exc:
                raise ValueError(f"{path}:{number}: {exc}") from None
            if "loop" not in steps:
                raise ValueError(f"{path}:{number}: {text!r} has no loop step")
            histories.append(steps)
    if not histories:
        raise ValueError(f"{path}: no history listed")
    return histories


def run_history(args, index, steps, rep):
    """One fresh process of history.py; its JSON, or a record of why there is none."""
    out = os.path.join(args.out, f"history-{index}-{rep}.json")
    cmd = [sys.executable, str(HERE / "history.py"), "--workload", args.workload, "--device", args.device,
           "--steps", ",".join(steps), "--out", out]
    if args.runtime_lib:
        cmd += ["--runtime-lib", args.runtime_lib]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"steps": steps, "error": f"timed out after {args.timeout} s"}
    if proc.returncode != 0 or not os.path.exists(out):
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"steps": steps, "error": f"exit {proc.returncode}: {last[:300]}", "stderr": proc.stderr[-4000:]}
    with open(out, encoding="utf-8") as file:
        record = json.load(file)
    os.remove(out)
    return record


def _loop_cell(loop):
    if not loop.get("ok"):
        return loop.get("skipped") or loop.get("error") or "no result"
    return f"{loop['median_ms'] * 1e3:.3f} ({loop['plain_span_median_ms'] * 1e3:.3f})"


def markdown(doc):
    lines = [f"# Process history and the loop's kernel time — {doc['workload']} on {doc['device']}", "",
             "Each row one process: the steps before each loop, and each loop's kernel time in µs as the "
             "profiler read it (stepped median; in parentheses the plain median of its spans).", "",
             "| history | process | loops |", "|---|---:|---|"]
    for row in doc["processes"]:
        cells = row.get("error") or "; ".join(_loop_cell(loop) for loop in row.get("loops", []))
        lines.append(f"| {','.join(row['steps'])} | {row['rep']} | {cells} |")
    return "\n".join(lines + ["", f"Command: `{doc['command']}`", ""])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workload", choices=sorted(workloads.WORKLOADS), default="tiny")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--runtime-lib", default=os.environ.get("ARBITER_RUNTIME_LIB"))
    parser.add_argument("--histories", default=str(HERE / "histories.txt"))
    parser.add_argument("--procs", type=int, default=2, help="fresh processes per history (default 2)")
    parser.add_argument("--timeout", type=float, default=180, help="seconds per process (default 180)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    try:
        histories = read_histories(args.histories)
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    os.makedirs(args.out, exist_ok=True)
    doc = {"workload": args.workload, "device": args.device, "command": " ".join([sys.executable] + sys.argv),
           "processes": []}
    for index, steps in enumerate(histories):
        for rep in range(args.procs):
            doc["processes"].append({"rep": rep, **run_history(args, index, steps, rep)})
            files.write_atomic(os.path.join(args.out, "results.json"), json.dumps(doc))
            files.write_atomic(os.path.join(args.out, "results.md"), markdown(doc))
            print(doc["processes"][-1].get("steps"), "done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
