"""One fresh process of the timing fidelity benchmark (run.py starts it):

  --mode arbiter     arbiter's own timing path, exactly as a candidate is timed:
                     arbiter_runner.timing.time_model over the runtime library (libarbiter_runtime.so);
                     the result dict and the whole timing JSON the runtime wrote.
  --mode baselines   (b) KernelBench's method, (c) triton.testing.do_bench, then (a) the reference:
                     CUPTI kernel durations through torch.profiler. Each method is independent: one
                     that fails records its error and the next still runs.

The result JSON is rewritten after every method, so a process that dies keeps what it measured."""
import argparse
import ctypes
import functools
import json
import os
import pathlib
import platform
import statistics
import sys
import tempfile
import time
import traceback

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "python"))

import torch  # noqa: E402

import files  # noqa: E402
import stepped  # noqa: E402
import timing_config  # noqa: E402
import workloads  # noqa: E402

KERNELBENCH_FLUSH_BYTES = 256 * 1024 * 1024
KERNELBENCH_CALLS, KERNELBENCH_WARMUP = 100, 3
CUPTI_CALLS, CUPTI_WARMUP = 200, 5
NEEDS_CUDA = "skipped: needs cuda"


def _sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def _error(exc):
    return {"ok": False, "error": f"{type(exc).__name__}: {exc}".splitlines()[0][:500],
            "traceback": traceback.format_exc()[-4000:]}


def measure_arbiter(model, input_sets, args):
    from arbiter_runner import runtime as rt
    from arbiter_runner import timing
    runtime = rt.load(args.runtime_lib)
    json_path = os.path.join(args.work, "timing.json")
    config = timing_config.arbiter_config(runtime, args.device, args.quick, args.timing)
    with torch.no_grad():
        result = timing.time_model(runtime, model, input_sets, args.device, config, json_path)
    with open(json_path, encoding="utf-8") as file:
        timing_json = json.load(file)
    return {"ok": True, "result": result, "timing_json": timing_json, "timing_config": config}


def _flush_buffer(device, quick):
    # KernelBench thrashes L2 with a fresh 256 MB tensor filled with zeros before every trial.
    nbytes = 16 * 1024 * 1024 if quick else KERNELBENCH_FLUSH_BYTES
    return torch.empty(nbytes, dtype=torch.uint8, device=device).zero_()


def measure_kernelbench(model, inputs, args):
    """Flush, start event, call, end event, synchronize; the mean of the calls after warm-ups.
    On cpu the same loop with the host clock."""
    calls = 10 if args.quick else KERNELBENCH_CALLS
    for _ in range(KERNELBENCH_WARMUP):
        model(*inputs)
    _sync(args.device)
    times = []
    for _ in range(calls):
        _flush_buffer(args.device, args.quick)
        if args.device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            model(*inputs)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        else:
            begin = time.perf_counter()
            model(*inputs)
            times.append((time.perf_counter() - begin) * 1e3)
    return {"ok": True, "mean_ms": statistics.fmean(times), "median_ms": statistics.median(times), "calls": calls,
            "clock": "cuda_event" if args.device == "cuda" else "perf_counter", "times_ms": times}


def measure_do_bench(model, inputs, args):
    if args.device != "cuda":
        return {"ok": False, "skipped": NEEDS_CUDA}
    try:
        import triton
        import triton.testing
    except ImportError as exc:
        return {"ok": False, "skipped": f"triton unavailable: {exc}"}
    ms = triton.testing.do_bench(lambda: model(*inputs), return_mode="median")
    return {"ok": True, "median_ms": float(ms), "triton": triton.__version__}


def _device_activities(trace_path):
    """(start_us, dur_us, name) of every kernel, memset and memcpy in a chrome trace, by start."""
    with open(trace_path, encoding="utf-8") as file:
        trace = json.load(file)
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else trace
    device_cats = {"kernel", "gpu_memset", "gpu_memcpy", "memset", "memcpy"}
    out = [(float(e["ts"]), float(e.get("dur", 0.0)), str(e.get("name", ""))) for e in events
           if e.get("ph") == "X" and str(e.get("cat", "")).lower() in device_cats]
    return sorted(out)


def _profile(body, trace_path, host_ops=True):
    """body's device activities as torch.profiler records them (_device_activities); host_ops=False
    leaves the host's operators unrecorded, so that the host queues calls as fast as unprofiled."""
    from torch.profiler import ProfilerActivity, profile
    activities = [ProfilerActivity.CPU, ProfilerActivity.CUDA] if host_ops else [ProfilerActivity.CUDA]
    with profile(activities=activities) as prof:
        body()
        torch.cuda.synchronize()
    prof.export_chrome_trace(trace_path)
    return _device_activities(trace_path)


def _names_alone(body, work, what):
    """The names of the device activities body launches, profiled alone (work/<what>_trace.json)."""
    return {name for _, _, name in _profile(body, os.path.join(work, f"{what}_trace.json"))}


def _split(activities, separators):
    """[(separator, call)]: the device activities grouped into calls, each after the separator (the
    flush, the hold) that started it; separators are not counted, calls without activity dropped."""
    groups, current = [], None
    for activity in activities:
        if activity[2] in separators:
            current = (activity, [])
            groups.append(current)
        elif current is not None:
            current[1].append(activity)
    return [(separator, call) for separator, call in groups if call]


def _leads(groups):
    """How each call's device work began, over _split's [(separator, call)]: per call, the time from
    the end of the separator before it (the hold where the pacing holds, else the flush) to the
    call's first activity, and that separator's length, both in ns. A kernel that starts the moment
    the one before it ends starts on a busy GPU; one that starts later starts on an idle GPU, which a
    tiny kernel's time shows."""
    leads = [(call[0][0] - separator[0] - separator[1]) * 1e3 for separator, call in groups]
    return leads, [separator[1] * 1e3 for separator, _ in groups]


def _held_calls(activities, sequence):
    """[(hold, call)]: the calls arbiter's timing loop queued behind its hold (its timed samples),
    each the activities after the hold's kernel (timing_config.HOLD_KERNEL) that follow the call's
    own sequence of activity names (the call profiled alone), up to its end or the first activity out
    of it (the next flush, hold or the clock's empty kernel; a flush's memset where the call's own
    sequence has none there). A sample cut short by such an activity is kept, shorter than the
    sequence, for the caller to refuse. Warm-up and host-latency calls are not held and are left
    out, as are holds with no call behind them."""
    groups, current = [], None
    for activity in activities:
        if activity[2] == timing_config.HOLD_KERNEL:
            current = (activity, [])
            groups.append(current)
        elif current is not None and activity[2] == sequence[len(current[1])]:
            current[1].append(activity)
            if len(current[1]) == len(sequence):
                current = None
        else:
            current = None
    return [(hold, call) for hold, call in groups if call]


def _call_stats(calls):
    """The medians of calls' kernel sums and spans as the profiler saw them: the GPU timer's step read
    from the calls' own activities (not the flushes' and holds': the longer a duration, the further
    kineto's conversion may carry it off the step); each duration snapped to it undoes the
    conversion, and the medians are taken inside the step, as arbiter takes its own (stepped.py)."""
    step = stepped.converted_step_ns([dur * 1e3 for call in calls for _, dur, _ in call])
    sums_ns = [sum(stepped.snapped([dur * 1e3 for _, dur, _ in call], step)) for call in calls]
    spans_ns = stepped.snapped([(call[-1][0] + call[-1][1] - call[0][0]) * 1e3 for call in calls], step)
    sums, spans = [v / 1e6 for v in sums_ns], [v / 1e6 for v in spans_ns]
    return {"median_ms": stepped.stepped_median(sums_ns, step) / 1e6,
            "span_median_ms": stepped.stepped_median(spans_ns, step) / 1e6, "timer_step_ns": step,
            "plain_median_ms": statistics.median(sums), "plain_span_median_ms": statistics.median(spans),
            "kernels_per_call": statistics.median(len(call) for call in calls), "calls": len(calls),
            "kernel_names": sorted({name for _, _, name in calls[0]}), "sums_ms": sums, "spans_ms": spans}


# How the CUPTI reference paces its calls: KERNELBENCH_PACING as KernelBench does (the call queued
# right behind the flush); arbiter's pacing (paced()) prepares each call as arbiter's prepare does —
# the flush, the persisting-L2 reset, a synchronise — queues it behind a kernel that holds the
# stream, as arbiter's device time does, warms up by time and rests after each call.
KERNELBENCH_PACING = {"warm_s": 0.0, "rest_ratio": 0.0, "sync_after_flush": False, "reset_persisting_l2": False,
                      "hold_cycles": 0}
# The hold: torch.cuda._sleep spins this many SM cycles (about 100 µs at 2 GHz), longer than the
# host takes to queue any workload's call, so the call starts the moment the hold ends (--hold-cycles
# sets another length; the lead each process records says whether the call still came in time).
HOLD_CYCLES = 200_000


def paced(timing, hold_cycles=HOLD_CYCLES):
    """The pacing of arbiter's timing loop for a timing config (timing_config.arbiter_config)."""
    return {"warm_s": timing["warmup_time_s"], "rest_ratio": timing["rest_ratio"], "sync_after_flush": True,
            "reset_persisting_l2": True, "hold_cycles": hold_cycles}


@functools.cache
def _libcuda():
    return ctypes.CDLL("libcuda.so.1")


def reset_persisting_l2():
    """cuCtxResetPersistingL2Cache on the current context, as arbiter's clock calls it after each
    flush (src/runtime/clock_cuda.cpp)."""
    status = _libcuda().cuCtxResetPersistingL2Cache()
    if status != 0:
        raise RuntimeError(f"cuCtxResetPersistingL2Cache returned CUresult {status}")


def _flushed_call(model, input_sets, flush, call_idx, pacing):
    """One call as the CUPTI reference makes it: the flush (followed by the persisting-L2 reset and
    settled with a synchronise where the pacing says), the hold where the pacing says, the call on
    the rotated input set, a sync; then the pacing's rest, rest_ratio times the call's wall time."""
    begin = time.perf_counter()
    flush.fill_(1)
    if pacing["reset_persisting_l2"]:
        reset_persisting_l2()
    if pacing["sync_after_flush"]:
        torch.cuda.synchronize()
    if pacing["hold_cycles"]:
        torch.cuda._sleep(pacing["hold_cycles"])
    model(*input_sets[call_idx % len(input_sets)])
    torch.cuda.synchronize()
    if pacing["rest_ratio"] > 0:
        time.sleep(pacing["rest_ratio"] * (time.perf_counter() - begin))


def _warm_by_time(model, input_sets, flush, pacing):
    """Flushed calls for the pacing's warm_s seconds, as arbiter's warm-up by time makes them: the
    GPU settles into the clock it holds under such calls (docs/measurement.md)."""
    calls, begin = 0, time.perf_counter()
    while time.perf_counter() - begin < pacing["warm_s"]:
        _flushed_call(model, input_sets, flush, calls, pacing)
        calls += 1
    return calls


def measure_cupti(model, input_sets, args, pacing=KERNELBENCH_PACING):
    """The reference: kernel durations as CUPTI reports them (torch.profiler uses kineto, which uses
    CUPTI). The flush is identified by profiling it alone first: whatever device work a flush
    launches is a separator between calls, never counted in them. With arbiter's pacing, the
    profiled calls follow its warm-up by time and are made as arbiter makes its samples (the
    state arbiter samples in)."""
    if args.device != "cuda":
        return {"ok": False, "skipped": NEEDS_CUDA}
    # fill_(1) on bytes: a kernel no workload launches (zero_ may become a memset, as library
    # calls' own workspace clears do).
    flush = torch.empty(KERNELBENCH_FLUSH_BYTES, dtype=torch.uint8, device="cuda")
    flush_names = _names_alone(lambda: [flush.fill_(1) for _ in range(3)], args.work, "flush")
    if not flush_names:
        return {"ok": False, "error": "torch.profiler recorded no device activity for the flush"}
    # The hold's kernel separates calls as the flush does and is not counted either.
    hold_names = (_names_alone(lambda: torch.cuda._sleep(pacing["hold_cycles"]), args.work, "hold")
                  if pacing["hold_cycles"] else set())
    separators = flush_names | hold_names
    for call_idx in range(CUPTI_WARMUP):
        model(*input_sets[call_idx % len(input_sets)])
    torch.cuda.synchronize()
    warm_calls = _warm_by_time(model, input_sets, flush, pacing)

    def body():
        for call_idx in range(CUPTI_CALLS):
            _flushed_call(model, input_sets, flush, call_idx, pacing)

    activities = _profile(body, os.path.join(args.work, "trace.json"))
    groups = _split(activities, separators)
    if len(groups) != CUPTI_CALLS:
        return {"ok": False, "error": f"found {len(groups)} calls between flushes, expected {CUPTI_CALLS}",
                "flush_names": sorted(flush_names), "hold_names": sorted(hold_names)}
    leads_ns, separator_ns = _leads(groups)
    return {"ok": True, **_call_stats([call for _, call in groups]), **pacing, "warm_calls": warm_calls,
            "flush_names": sorted(flush_names), "hold_names": sorted(hold_names),
            "lead_median_ns": statistics.median(leads_ns), "separator_median_ns": statistics.median(separator_ns)}


def measure_cupti_loop(model, input_sets, args):
    """CUPTI through torch.profiler (kineto, not arbiter's probe) watching arbiter's own timing loop:
    time_model run in this process exactly as measure_arbiter runs it, profiled whole. Its timed
    samples are the calls queued behind the runtime's hold (_held_calls; the call's own sequence of
    activities is read by profiling one call alone after the loop); per sample the kernel sum and the
    span, as measure_cupti takes them. The reference for arbiter's device time that needs no
    imitation of its pacing: the same flushes, holds, rests and warm-up, the same history before
    them (the workload built, nothing else), another process, another recorder."""
    if args.device != "cuda":
        return {"ok": False, "skipped": NEEDS_CUDA}
    from arbiter_runner import runtime as rt
    from arbiter_runner import timing
    runtime = rt.load(args.runtime_lib)
    config = timing_config.arbiter_config(runtime, args.device, args.quick, args.timing)
    json_path = os.path.join(args.work, "loop_timing.json")
    # The host's operators unrecorded: arbiter's hold lasts as long as the host takes to queue the call.
    activities = _profile(lambda: timing.time_model(runtime, model, input_sets, args.device, config, json_path),
                          os.path.join(args.work, "loop_trace.json"), host_ops=False)
    with open(json_path, encoding="utf-8") as file:
        timing_json = json.load(file)
    # The call alone only after the loop: a call before it would change the history the loop runs
    # with, and a kernel's time moves with it (docs/measurement.md); after the loop's warm-up, a
    # library's one-time set-up is behind it too.
    alone = _profile(lambda: model(*input_sets[0]), os.path.join(args.work, "call_trace.json"))
    sequence = [name for _, _, name in alone]
    if not sequence or timing_config.HOLD_KERNEL in sequence:
        return {"ok": False, "error": f"the call's own device activities cannot be told apart: {sequence}"}
    groups = _held_calls(activities, sequence)
    # The runtime counts its held samples less the throttled ones (held or not): every sample window
    # of arbiter's probe, and so every held call here, counts.
    held, throttled = timing_json.get("held_samples") or 0, timing_json.get("throttled_samples") or 0
    if not groups or not held <= len(groups) <= held + throttled:
        return {"ok": False, "error": f"found {len(groups)} held calls in the trace, the runtime held {held} "
                f"samples besides {throttled} throttled", "call_sequence": sequence}
    # A sample whose activities left the call's sequence took in other work (the loop's own, or
    # another stream's): its span would not be the call's.
    short = [call for _, call in groups if len(call) != len(sequence)]
    if short:
        return {"ok": False, "error": f"{len(short)} held samples break off the call's sequence of "
                f"{len(sequence)} device activities, one after {len(short[0])}", "call_sequence": sequence}
    leads_ns, hold_ns = _leads(groups)
    return {"ok": True, **_call_stats([call for _, call in groups]), "call_sequence": sequence,
            "lead_median_ns": statistics.median(leads_ns), "separator_median_ns": statistics.median(hold_ns),
            "timing_config": config, "runtime_median_ms": timing_json.get("median_ms"),
            "sm_clock_mhz": timing_json.get("sm_clock_mhz")}


def _environment(device):
    env = {"python": platform.python_version(), "torch": torch.__version__, "device": device}
    if device == "cuda":
        env.update({"gpu": torch.cuda.get_device_name(0), "cuda": torch.version.cuda})
    return env


def _write(path, result):
    files.write_atomic(path, json.dumps(result))


def _run_method(result, name, measure, out_path):
    try:
        result[name] = measure()
    except Exception as exc:  # noqa: BLE001 - one failing method must not cost the others
        result[name] = _error(exc)
    _write(out_path, result)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mode", choices=("arbiter", "baselines"), required=True)
    parser.add_argument("--workload", choices=sorted(workloads.WORKLOADS), required=True)
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--runtime-lib", default=os.environ.get("ARBITER_RUNTIME_LIB"))
    parser.add_argument("--out", required=True, help="result JSON of this process")
    parser.add_argument("--work", help="scratch folder (default: a temporary one)")
    parser.add_argument("--timing", action="append", metavar="KEY=VALUE",
                        help="override one of arbiter's timing settings (repeatable)")
    parser.add_argument("--hold-cycles", type=int, default=HOLD_CYCLES,
                        help=f"SM cycles the sustained reference's hold spins (default {HOLD_CYCLES})")
    args = parser.parse_args(argv)
    try:
        args.timing = timing_config.parse_overrides(args.timing)
    except ValueError as exc:
        parser.error(str(exc))
    args.work = args.work or tempfile.mkdtemp(prefix="timing_fidelity_")
    os.makedirs(args.work, exist_ok=True)
    result = {"mode": args.mode, "workload": args.workload, "pid": os.getpid(), "env": _environment(args.device)}
    try:
        model, input_sets, info = workloads.build(args.workload, args.device, args.quick)
    except Exception as exc:  # noqa: BLE001
        result["build"] = _error(exc)
        _write(args.out, result)
        return 1
    result["workload_info"] = info
    with torch.no_grad():
        if args.mode == "arbiter":
            _run_method(result, "arbiter", lambda: measure_arbiter(model, input_sets, args), args.out)
        else:
            # arbiter's loop first: its process then has the history of arbiter's own (the workload
            # built, then the loop), and the same allocations in the same order.
            _run_method(result, "cupti_loop", lambda: measure_cupti_loop(model, input_sets, args), args.out)
            _run_method(result, "kernelbench", lambda: measure_kernelbench(model, input_sets[0], args), args.out)
            _run_method(result, "do_bench", lambda: measure_do_bench(model, input_sets[0], args), args.out)
            _run_method(result, "cupti", lambda: measure_cupti(model, input_sets, args), args.out)
            from arbiter_runner import runtime as rt
            arbiters = paced(timing_config.arbiter_config(rt.load(args.runtime_lib), args.device, args.quick, args.timing),
                             args.hold_cycles)
            _run_method(result, "cupti_sustained", lambda: measure_cupti(model, input_sets, args, arbiters), args.out)
            # The loop again after the other methods: whether a process's history moves the kernel's time.
            _run_method(result, "cupti_loop_after", lambda: measure_cupti_loop(model, input_sets, args), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
