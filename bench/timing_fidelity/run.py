"""Timing fidelity: how close arbiter's reported time, KernelBench's method and triton's do_bench
come to the kernels' own durations as CUPTI reports them, on four workloads (workloads.py).

Per workload and repetition, two fresh processes (worker.py), interleaved so that drift hits every
method alike: one times the workload through arbiter's own path (arbiter_runner.timing.time_model,
as a candidate is timed), the other runs KernelBench's method, do_bench and then the CUPTI
reference (torch.profiler). Each method's number across processes is the median of the
per-process numbers; spread = (max - min) / median of them; error = (method - CUPTI) / CUPTI.

Writes to --out: results.json (every raw number, every process's timing JSON) and results.md.

  python3 bench/timing_fidelity/run.py --out OUT [--runtime-lib PATH] [--procs 5] [--timing KEY=VALUE ...]
  python3 bench/timing_fidelity/run.py --device cpu --quick --out OUT   (the CPU self-test)"""
import argparse
import collections
import datetime
import glob
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import files  # noqa: E402
import report  # noqa: E402
import stepped  # noqa: E402
import timing_config  # noqa: E402
import workloads  # noqa: E402


def find_runtime_lib(given):
    if given:
        return str(pathlib.Path(given).resolve())
    if os.environ.get("ARBITER_RUNTIME_LIB"):
        return os.environ["ARBITER_RUNTIME_LIB"]
    found = sorted(glob.glob(str(ROOT / "build" / "*" / "lib" / "libarbiter_runtime.so")))
    if not found:
        sys.exit("run.py: no libarbiter_runtime.so: pass --runtime-lib or set ARBITER_RUNTIME_LIB")
    return found[0]


def run_worker(args, mode, workload, rep, work):
    """One fresh process; its result JSON, or a record of why there is none."""
    tag = f"{workload}-{mode}-{rep}"
    out = os.path.join(work, f"{tag}.json")
    cmd = [sys.executable, str(HERE / "worker.py"), "--mode", mode, "--workload", workload, "--device", args.device,
           "--runtime-lib", args.runtime_lib, "--out", out, "--work", os.path.join(work, tag)]
    if args.quick:
        cmd.append("--quick")
    for key, value in args.timing.items():
        cmd.append(f"--timing={key}={value}")
    if args.hold_cycles is not None:
        cmd.append(f"--hold-cycles={args.hold_cycles}")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "python"), os.environ.get("PYTHONPATH")])))
    probe_out = os.path.join(work, f"{tag}-probe.json")
    probe_lib = os.path.join(os.path.dirname(os.path.abspath(args.runtime_lib)), "libarbiter_probe.so")
    if mode == "arbiter" and args.device == "cuda" and os.path.exists(probe_lib):
        # As `arbiter eval` runs a candidate: the CUPTI probe injected, its spans the device time.
        env.update(CUDA_INJECTION64_PATH=probe_lib, ARBITER_PROBE_OUT=probe_out)
    started = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.worker_timeout, env=env)
        returncode, stderr = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired as exc:  # subprocess.run has killed it
        returncode = "timeout"
        stderr = exc.stderr.decode("utf-8", "replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
    result = {"mode": mode, "workload": workload}
    if os.path.exists(out):
        with open(out, encoding="utf-8") as file:
            result = json.load(file)
    result.update({"rep": rep, "returncode": returncode, "wall_s": round(time.monotonic() - started, 3)})
    if mode == "arbiter":
        timing_json = (result.get("arbiter") or {}).get("timing_json") or {}
        result["arbiter_probe"] = probe_spans(probe_out, probe_lib, args.device, timing_json.get("dropped_idx") or ())
    if returncode != 0:
        result["stderr_tail"] = stderr[-3000:]
    print(f"  {tag}: exit {returncode} in {result['wall_s']:.1f} s", file=sys.stderr, flush=True)
    return result


# As src/pipeline/detail/probe_evidence.hpp: a drop list that lowers the median more than this is ignored.
MAX_DROPPED_SHIFT = 0.01


def probe_spans(probe_out, probe_lib, device, dropped=()):
    """The device time `arbiter eval` reports on cuda: the median over the timed samples' windows of
    the CUPTI span (first kernel/copy/memset start to last end; 0 for a window without device
    work), taken inside the GPU timer's step (the greatest common divisor of the listed kernels'
    durations), leaving out the samples the runtime dropped (its timing record's dropped_idx: the
    throttled ones) unless that lowers it by more than MAX_DROPPED_SHIFT, as
    src/judge/probe_evidence.cpp computes it."""
    if device != "cuda":
        return {"ok": False, "skipped": "skipped: needs cuda"}
    if not os.path.exists(probe_lib):
        return {"ok": False, "skipped": f"skipped: {probe_lib} not built"}
    if not os.path.exists(probe_out):
        return {"ok": False, "error": "the probe wrote no evidence"}
    with open(probe_out, encoding="utf-8") as file:
        evidence = json.load(file)
    every = [w for w in evidence.get("windows", []) if w.get("label") == "sample"]
    if not every:
        return {"ok": False, "error": "no timed sample windows in the probe's evidence"}
    step = stepped.timer_step_ns(k.get("end_ns", 0) - k.get("start_ns", 0) for k in evidence.get("kernels", []))
    every_spans = _window_values(every, "span_ns")
    all_median_ms = stepped.stepped_median(every_spans, step) / 1e6
    dropped = set(dropped)
    windows = [w for w in every if w.get("index") not in dropped] or every
    spans = _window_values(windows, "span_ns")
    dropped_ignored = stepped.stepped_median(spans, step) / 1e6 < all_median_ms * (1 - MAX_DROPPED_SHIFT)
    if dropped_ignored:
        windows, spans = every, every_spans
    # The same samples' kernel (and copy and memset) durations summed (busy_ns): CUPTI's kernel time
    # in this very process, so that the comparison with the span carries no difference between processes.
    busy = _window_values(windows, "busy_ns")
    return {"ok": True, "median_ms": stepped.stepped_median(spans, step) / 1e6, "all_median_ms": all_median_ms,
            "dropped_ignored": dropped_ignored,
            "busy_median_ms": stepped.stepped_median(busy, step) / 1e6, "timer_step_ns": step,
            "plain_median_ms": statistics.median(spans) / 1e6, "samples": len(spans),
            # how many samples read each span, the 64 shortest readings: the steps a tiny kernel lands on
            "span_readings_ns": dict(sorted(collections.Counter(spans).items())[:64]), **hold_leads(evidence)}


def _window_values(windows, key):
    """Each window's value of key; 0 for a window without device work."""
    return [w[key] if w.get("kernels", 0) + w.get("copies", 0) + w.get("memsets", 0) > 0 else 0 for w in windows]


def hold_leads(evidence):
    """How each timed sample's device work began, over the samples whose kernels the probe lists one
    by one: the time from the end of the runtime's hold to the call's first kernel, and the hold's
    length, both medians in ns (None where no sample is listed with both)."""
    samples = {i for i, w in enumerate(evidence.get("windows", [])) if w.get("label") == "sample"}
    by_window = collections.defaultdict(list)
    for kernel in evidence.get("kernels", []):
        if kernel.get("window") in samples:
            by_window[kernel["window"]].append(kernel)
    leads, lengths = [], []
    for kernels in by_window.values():
        kernels.sort(key=lambda k: k.get("start_ns", 0))
        hold = next((k for k in kernels if k.get("name") == timing_config.HOLD_KERNEL), None)
        first = next((k for k in kernels if k is not hold), None)
        if hold is not None and first is not None:
            leads.append(first["start_ns"] - hold["end_ns"])
            lengths.append(hold["end_ns"] - hold["start_ns"])
    if not leads:
        return {"lead_median_ns": None, "hold_median_ns": None, "leads_listed": 0}
    return {"lead_median_ns": statistics.median(leads), "hold_median_ns": statistics.median(lengths),
            "leads_listed": len(leads)}


def measure(args, workload_done):
    """Every workload's runs; workload_done(runs so far) after each workload. The workers' scratch
    folder is removed at the end: what they measured is in the runs."""
    runs = {}
    with tempfile.TemporaryDirectory(prefix="timing_fidelity_") as work:
        for workload in args.workloads:
            print(f"{workload}: {workloads.WORKLOADS[workload]}", file=sys.stderr, flush=True)
            workload_runs = {"arbiter": [], "baselines": []}
            for rep in range(args.procs):
                for mode in ("arbiter", "baselines"):
                    workload_runs[mode].append(run_worker(args, mode, workload, rep, work))
            runs[workload] = workload_runs
            workload_done(runs)
    return runs


def write_results(args, argv, runs, started):
    """results.json and results.md of the workloads measured so far (`complete` once all are), so
    that a run cut short keeps what it measured."""
    doc = {"generated_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "command": " ".join([os.path.basename(sys.executable), *sys.argv]) if argv is None else " ".join(argv),
           "device": args.device, "quick": args.quick, "timing_overrides": args.timing, "hold_cycles": args.hold_cycles,
           "procs": args.procs,
           "runtime_lib": args.runtime_lib, "complete": list(runs) == args.workloads,
           "workloads": {w: workloads.WORKLOADS[w] for w in runs},
           "summary": {w: report.summarize(runs[w]) for w in runs}, "runs": runs,
           "wall_s": round(time.monotonic() - started, 1)}
    os.makedirs(args.out, exist_ok=True)
    files.write_atomic(os.path.join(args.out, "results.json"), json.dumps(doc, indent=1))
    files.write_atomic(os.path.join(args.out, "results.md"), report.markdown(doc))
    return doc


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="folder for results.json and results.md (created)")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--quick", action="store_true", help="tiny sizes and short timing (the CPU self-test)")
    parser.add_argument("--procs", type=int, default=5, help="fresh processes per workload and method (default 5)")
    parser.add_argument("--workloads", default=",".join(workloads.WORKLOADS), help="comma-separated subset")
    parser.add_argument("--runtime-lib", help="libarbiter_runtime.so (default: $ARBITER_RUNTIME_LIB, then build/*/lib)")
    parser.add_argument("--worker-timeout", type=float, default=180, help="seconds per worker process")
    parser.add_argument("--timing", action="append", metavar="KEY=VALUE",
                        help="override one of arbiter's timing settings (timing_config.py; repeatable), for "
                             "arbiter's processes and the sustained CUPTI reference's pacing")
    parser.add_argument("--hold-cycles", type=int,
                        help="SM cycles the sustained CUPTI reference's hold spins (worker.py's default: about 100 µs)")
    args = parser.parse_args(argv)
    try:
        args.timing = timing_config.parse_overrides(args.timing)
    except ValueError as exc:
        parser.error(str(exc))
    args.workloads = [w for w in args.workloads.split(",") if w]
    unknown = [w for w in args.workloads if w not in workloads.WORKLOADS]
    if unknown:
        parser.error(f"unknown workloads {unknown}; known: {', '.join(workloads.WORKLOADS)}")
    if args.procs < 1:
        parser.error("--procs must be at least 1")
    if args.hold_cycles is not None and args.hold_cycles < 1:
        parser.error("--hold-cycles must be at least 1")
    args.runtime_lib = find_runtime_lib(args.runtime_lib)
    return args


def main(argv=None):
    args = parse_args(argv)
    started = time.monotonic()
    doc = write_results(args, argv, measure(args, lambda runs: write_results(args, argv, runs, started)), started)
    print(f"wrote {args.out}/results.json and results.md in {doc['wall_s']} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
