"""Summaries and the Markdown table of the timing fidelity benchmark (run.py writes them).

Per method: the per-process numbers, their median ("value"), spread = (max - min) / median, and the
error of the value against the CUPTI kernel time. A method that did not run says why instead."""
import statistics

# arbiter's device time against the kernel time of the same process and samples, of the profiler
# after the same pacing, and the profiler's span: (summary key, in a workload's sentence, column).
COMPARISONS = (
    ("same_process_error_pct", "against the kernel time of the same process and samples (median over processes)",
     "against its own process's kernel time"),
    ("sustained_error_pct", "against the sustained CUPTI kernel time", "against the sustained CUPTI kernel time"),
    ("loop_error_pct", "against the profiler's span of arbiter's own timing loop", "against the profiler on arbiter's loop"),
    ("span_error_pct", "against the CUPTI span", "against the CUPTI span"),
)
# Host-latency keys the runtime's timing JSON may carry, in order of preference.
HOST_LATENCY_KEYS = ("host_median_ms", "host_latency_ms", "host_ms")
# The targets, judged per workload: arbiter's spread across processes at most SPREAD_SHARE of
# the best peer's (PEERS), and its device time within ERROR_LIMIT_PCT of the CUPTI kernel time, like
# with like: the profiler's span of calls made as arbiter makes its samples (the device time is a
# span too, after the same warm-up, flush, hold and rest) — arbiter's own timing loop watched by the
# profiler in another process (cupti_loop), else the profiler's imitation of its pacing
# (cupti_sustained).
PEERS = ("kernelbench", "do_bench")
# The error target's reference, as the targets table names it.
TARGET_REFERENCES = {"cupti_loop": "the profiler on arbiter's loop", "cupti_sustained": "the profiler's imitation"}
SPREAD_SHARE = 0.5
ERROR_LIMIT_PCT = 2.0

# (key, heading) in table order; "cupti" is the reference the errors are computed against.
METHODS = (
    ("cupti", "CUPTI kernel time (torch.profiler, median of per-call kernel sums)"),
    ("cupti_span", "CUPTI span (first kernel start to last kernel end)"),
    ("cupti_sustained", "CUPTI kernel time with the calls paced as arbiter paces them "
                        "(after its warm-up; the state arbiter samples in)"),
    ("cupti_loop", "CUPTI span of arbiter's own timing loop (torch.profiler watching time_model in another process)"),
    ("cupti_loop_after", "the same, again after the other methods in that process (its history changed)"),
    ("arbiter_cupti", "arbiter device time (CUPTI spans of its timed samples; what `arbiter eval` reports on cuda)"),
    ("arbiter_plain", "arbiter device time as a plain median of the same spans (one of the GPU timer's readings)"),
    ("arbiter_busy", "CUPTI kernel time in arbiter's process (the same samples' kernel durations summed)"),
    ("arbiter", "arbiter held events (the runtime's median_ms)"),
    ("arbiter_host", "arbiter host latency"),
    ("kernelbench", "KernelBench (mean of 100 calls, each after a 256 MB flush)"),
    ("do_bench", "triton do_bench (median)"),
)


def _host_latency(timing_json):
    for key in HOST_LATENCY_KEYS:
        value = timing_json.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    return None


def _pick(runs, method, key):
    """Per-process numbers of method, and the reasons it has none where it has none."""
    values, reasons = [], []
    for run in runs:
        entry = run.get(method)
        if entry is None:
            reasons.append(run.get("build", {}).get("error") or f"no result (exit {run.get('returncode')})")
        elif entry.get("ok") and isinstance(entry.get(key), (int, float)):
            values.append(float(entry[key]))
        else:
            reasons.append(entry.get("skipped") or entry.get("error") or "no number")
    return values, reasons


def _arbiter_values(runs):
    medians, hosts, reasons = [], [], []
    for run in runs:
        entry = run.get("arbiter")
        if entry is None or not entry.get("ok"):
            reasons.append((entry or {}).get("error") or run.get("build", {}).get("error") or
                           f"no result (exit {run.get('returncode')})")
            continue
        medians.append(float(entry["result"]["median_ms"]))
        host = _host_latency(entry.get("timing_json", {}))
        if host is not None:
            hosts.append(host)
    return medians, hosts, reasons


def _diff_pct(value, reference):
    """(value - reference) / reference in percent; None where either is missing or the reference is 0."""
    return 100.0 * (value - reference) / reference if value is not None and reference else None


def _row(values, reasons, reference):
    if not values:
        return {"value_ms": None, "processes": 0, "why": reasons[0] if reasons else "no result", "values_ms": []}
    value = statistics.median(values)
    row = {"value_ms": value, "processes": len(values), "values_ms": values,
           "spread": (max(values) - min(values)) / value if value > 0 else None,
           "error_pct": _diff_pct(value, reference)}
    if reasons:
        row["failed_processes"] = reasons
    return row


def _same_process_error(runs):
    """Median over processes of (device time - kernel time) / kernel time, both from the probe of
    the same process and the same samples: the error with no difference between processes in it."""
    errors = [_diff_pct(e["median_ms"], e["busy_median_ms"])
              for e in (run.get("arbiter_probe") or {} for run in runs)
              if e.get("ok") and isinstance(e.get("busy_median_ms"), (int, float)) and e["busy_median_ms"] > 0]
    return statistics.median(errors) if errors else None


def _arbiter_clocks(runs):
    """(device time ms, median SM clock MHz, power-capped samples, samples taken) of each arbiter
    process that has a time and a clock, in run order (the counts None where the record lacks them):
    where processes differ as wholes, the clock the GPU held in each, and how much of it under its
    power cap, says why."""
    out = []
    for run in runs:
        probe, timing_json = run.get("arbiter_probe") or {}, (run.get("arbiter") or {}).get("timing_json") or {}
        ms = probe.get("median_ms") if probe.get("ok") else (run.get("arbiter") or {}).get("result", {}).get("median_ms")
        mhz = timing_json.get("sm_clock_mhz")
        taken = timing_json.get("sample_sm_mhz")  # every sample's reading, the throttled ones too
        taken = len(taken) if isinstance(taken, list) else timing_json.get("samples")
        if isinstance(ms, (int, float)) and isinstance(mhz, (int, float)):
            out.append((float(ms), float(mhz), timing_json.get("power_capped_samples"), taken))
    return out


def _clock_said(ms, mhz, capped, taken):
    capped_said = f" ({capped} of {taken} samples power-capped)" if isinstance(capped, int) and isinstance(taken, int) else ""
    return f"{ms:.4f} ms @ {mhz:.0f} MHz{capped_said}"


def _timer_steps(workload_runs):
    """The GPU timer's steps read from the timestamps: by arbiter's probe in its processes, by the
    profiler in the baselines' (stepped.py)."""
    def steps(runs, methods):
        return sorted({(run.get(m) or {}).get("timer_step_ns") for run in runs for m in methods} - {None})
    return {"arbiter": steps(workload_runs["arbiter"], ("arbiter_probe",)),
            "profiler": steps(workload_runs["baselines"], ("cupti", "cupti_sustained", "cupti_loop"))}


def _leads(workload_runs):
    """How the calls' device work began, median over processes (ns): from the end of the kernel
    before the call (arbiter's hold; the profiler's hold in its sustained calls, its flush in its
    first calls) to the call's first kernel, and that kernel's length; None where not recorded."""
    def median_of(runs, method, key):
        values = [(run.get(method) or {}).get(key) for run in runs]
        values = [v for v in values if isinstance(v, (int, float))]
        return statistics.median(values) if values else None

    def pair(runs, method, length_key):
        return median_of(runs, method, "lead_median_ns"), median_of(runs, method, length_key)
    arbiter, baselines = workload_runs["arbiter"], workload_runs["baselines"]
    return {"arbiter": pair(arbiter, "arbiter_probe", "hold_median_ns"),
            "sustained": pair(baselines, "cupti_sustained", "separator_median_ns"),
            "loop": pair(baselines, "cupti_loop", "separator_median_ns"),
            "first_calls": pair(baselines, "cupti", "separator_median_ns")}


def summarize(workload_runs):
    """{method: row} for one workload's {"arbiter": [...], "baselines": [...]} process results."""
    baselines = workload_runs["baselines"]
    cupti, cupti_why = _pick(baselines, "cupti", "median_ms")
    reference = statistics.median(cupti) if cupti else None
    span, span_why = _pick(baselines, "cupti", "span_median_ms")
    sustained, sustained_why = _pick(baselines, "cupti_sustained", "median_ms")
    loop, loop_why = _pick(baselines, "cupti_loop", "span_median_ms")
    loop_after, loop_after_why = _pick(baselines, "cupti_loop_after", "span_median_ms")
    medians, hosts, arbiter_why = _arbiter_values(workload_runs["arbiter"])
    kernelbench, kernelbench_why = _pick(baselines, "kernelbench", "mean_ms")
    do_bench, do_bench_why = _pick(baselines, "do_bench", "median_ms")
    arbiter_cupti, arbiter_cupti_why = _pick(workload_runs["arbiter"], "arbiter_probe", "median_ms")
    arbiter_busy, arbiter_busy_why = _pick(workload_runs["arbiter"], "arbiter_probe", "busy_median_ms")
    arbiter_plain, arbiter_plain_why = _pick(workload_runs["arbiter"], "arbiter_probe", "plain_median_ms")
    host_why = arbiter_why or ["the runtime's timing JSON has no host latency key"]
    summary = {
        "reference_ms": reference,
        "cupti": _row(cupti, cupti_why, reference),
        "cupti_span": _row(span, span_why, reference),
        "cupti_sustained": _row(sustained, sustained_why, reference),
        "cupti_loop": _row(loop, loop_why, reference),
        "cupti_loop_after": _row(loop_after, loop_after_why, reference),
        "arbiter_cupti": _row(arbiter_cupti, arbiter_cupti_why, reference),
        "arbiter_plain": _row(arbiter_plain, arbiter_plain_why, reference),
        "arbiter_busy": _row(arbiter_busy, arbiter_busy_why, reference),
        "timer_steps_ns": _timer_steps(workload_runs),
        "leads_ns": _leads(workload_runs),
        "same_process_error_pct": _same_process_error(workload_runs["arbiter"]),
        "arbiter": _row(medians, arbiter_why, reference),
        "arbiter_host": _row(hosts, [] if hosts else host_why, reference),
        "kernelbench": _row(kernelbench, kernelbench_why, reference),
        "do_bench": _row(do_bench, do_bench_why, reference),
    }
    summary["sustained_error_pct"] = _diff_pct(summary["arbiter_cupti"]["value_ms"], summary["cupti_sustained"]["value_ms"])
    # Like with like: the device time is a span (the gaps between a call's kernels count), as is this.
    summary["span_error_pct"] = _diff_pct(summary["arbiter_cupti"]["value_ms"], summary["cupti_span"]["value_ms"])
    summary["loop_error_pct"] = _diff_pct(summary["arbiter_cupti"]["value_ms"], summary["cupti_loop"]["value_ms"])
    summary["arbiter_clocks"] = _arbiter_clocks(workload_runs["arbiter"])
    sustained_spans, _ = _pick(baselines, "cupti_sustained", "span_median_ms")
    against, spans = ("cupti_loop", loop) if loop else ("cupti_sustained", sustained_spans)
    summary["targets"] = targets(summary, statistics.median(spans) if spans else None, against)
    return summary


def targets(summary, reference_span_ms, against):
    """The two targets for one workload: each with its numbers and met (None where a number is
    missing); the error against reference_span_ms, the median span of the method `against`."""
    device = summary["arbiter_cupti"] if summary["arbiter_cupti"]["value_ms"] is not None else summary["arbiter"]
    peers = [(summary[key]["spread"], key) for key in PEERS if summary[key].get("spread") is not None]
    best_spread, best_peer = min(peers) if peers else (None, None)
    spread = device.get("spread")
    error = _diff_pct(device["value_ms"], reference_span_ms)
    return {
        "spread": {"arbiter": spread, "best_peer": best_peer, "best_peer_spread": best_spread,
                   "met": None if spread is None or best_spread is None else spread <= SPREAD_SHARE * best_spread},
        "error": {"against": against, "against_ms": reference_span_ms, "pct": error,
                  "met": None if error is None else abs(error) <= ERROR_LIMIT_PCT},
    }


def _ms(value):
    return "—" if value is None else f"{value:.4f}"


def _pct(value, signed=False):
    if value is None:
        return "—"
    return f"{value:+.1f}%" if signed else f"{100 * value:.1f}%"


def _cell(row):
    if row["value_ms"] is None:
        return row["why"]
    return f"{_ms(row['value_ms'])} ({_pct(row.get('error_pct'), signed=True)})"


def workload_table(name, what, summary):
    lines = [f"### {name} — {what}", "",
             "| method | time (ms) | spread across processes | error vs CUPTI | processes |",
             "|---|---:|---:|---:|---:|"]
    for key, heading in METHODS:
        row = summary[key]
        if row["value_ms"] is None:
            lines.append(f"| {heading} | {row['why']} | — | — | 0 |")
            continue
        error = "(reference)" if key == "cupti" else _pct(row.get("error_pct"), signed=True)
        lines.append(f"| {heading} | {_ms(row['value_ms'])} | {_pct(row.get('spread'))} | {error} | {row['processes']} |")
    lines += ["", "arbiter device time " + "; ".join(f"{what}: {_pct(summary.get(key), signed=True)}"
                                                     for key, what, _ in COMPARISONS)]
    steps = summary.get("timer_steps_ns") or {}
    if steps.get("arbiter") or steps.get("profiler"):
        lines += ["", "The GPU timer's step, read from the timestamps (medians are taken inside it): arbiter's probe "
                  f"{', '.join(map(str, steps.get('arbiter') or ['—']))} ns; the profiler "
                  f"{', '.join(map(str, steps.get('profiler') or ['—']))} ns"]
    leads = summary.get("leads_ns") or {}
    if any(lead is not None for lead, _ in leads.values()):
        def said(key, before):
            lead, length = leads.get(key) or (None, None)
            return "—" if lead is None else f"{lead:.0f} ns after a {before} of {length / 1e3:.1f} µs"
        lines += ["", "Where each call's first kernel starts, median over processes: arbiter's samples "
                  f"{said('arbiter', 'hold')}; the same loop under the profiler {said('loop', 'hold')}; "
                  f"the profiler's sustained calls {said('sustained', 'hold')}; its first calls "
                  f"{said('first_calls', 'flush')}"]
    if summary.get("arbiter_clocks"):
        lines += ["", "arbiter's processes in order, device time at the median SM clock of their samples (NVML): " +
                  ", ".join(_clock_said(*clock) for clock in summary["arbiter_clocks"])]
    return "\n".join(lines) + "\n"


def summary_table(doc):
    keys = [key for key, _ in METHODS
            if key not in ("cupti_span", "cupti_sustained", "cupti_loop", "cupti_loop_after", "arbiter_plain",
                           "arbiter_busy")]
    headings = dict(METHODS)
    lines = ["| workload | " + " | ".join(headings[k].split(" (")[0] for k in keys) +
             "".join(f" | arbiter device time {column}" for _, _, column in COMPARISONS) + " |",
             "|---|" + "---:|" * (len(keys) + len(COMPARISONS))]
    for name, summary in doc["summary"].items():
        cells = [_ms(summary["cupti"]["value_ms"])] + [_cell(summary[k]) for k in keys[1:]]
        cells += [_pct(summary.get(key), signed=True) for key, _, _ in COMPARISONS]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _met(flag):
    return "—" if flag is None else ("**met**" if flag else "**not met**")


def targets_table(doc):
    headings = dict(METHODS)
    lines = ["| workload | arbiter's spread | best peer's spread | at most half | arbiter device time against the "
             f"CUPTI span of calls made as arbiter makes its samples | within ±{ERROR_LIMIT_PCT:g}% |",
             "|---|---:|---:|---|---:|---|"]
    for name, summary in doc["summary"].items():
        spread, error = summary["targets"]["spread"], summary["targets"]["error"]
        peer = spread["best_peer"] and headings[spread["best_peer"]].split(" (")[0]
        against = TARGET_REFERENCES.get(error.get("against"), "")
        lines.append(f"| {name} | {_pct(spread['arbiter'])} | {_pct(spread['best_peer_spread'])}"
                     f"{f' ({peer})' if peer else ''} | {_met(spread['met'])} | {_pct(error['pct'], signed=True)}"
                     f"{f' ({against})' if error['pct'] is not None and against else ''} | {_met(error['met'])} |")
    return "\n".join(lines) + "\n"


def _environment(doc):
    for runs in doc["runs"].values():
        for run in runs["baselines"] + runs["arbiter"]:
            if "env" in run:
                return run["env"]
    return {}


def _size(runs):
    for run in runs["baselines"] + runs["arbiter"]:
        if "workload_info" in run:
            return run["workload_info"]["size"]
    return "?"


def _overrides(doc):
    overrides = doc.get("timing_overrides") or {}
    said = ""
    if overrides:
        said = "; arbiter's timing settings overridden: " + ", ".join(f"{k} = {v}" for k, v in overrides.items())
    if doc.get("hold_cycles"):
        said += f"; the sustained reference's hold spins {doc['hold_cycles']} SM cycles"
    return said


def markdown(doc):
    env = _environment(doc)
    machine = env.get("gpu") or f"{doc['device']} (no GPU)"
    parts = [f"# Timing fidelity — {machine}", "",
             f"torch {env.get('torch', '?')}, CUDA {env.get('cuda', '—')}, Python {env.get('python', '?')}; "
             f"{doc['procs']} fresh processes per workload and method; generated {doc['generated_at']} "
             f"in {doc.get('wall_s', '?')} s{' (quick: tiny sizes, short timing)' if doc['quick'] else ''}"
             f"{_overrides(doc)}.", "",
             *([] if doc.get("complete", True) else ["**Incomplete**: the run ended before its other workloads.", ""]),
             "Times in ms: the median over processes of each process's own number; in parentheses and in "
             "the error column, the difference from the CUPTI kernel time. Spread = (max − min) / median "
             "of the per-process numbers.", "",
             "## Summary", "", summary_table(doc),
             "## Targets", "",
             f"Spread across processes at most {SPREAD_SHARE:g} of the best peer's; device time within "
             f"±{ERROR_LIMIT_PCT:g}% of the CUPTI kernel time, like with like: the profiler's span of calls made as "
             "arbiter makes its samples (after its warm-up, each flushed, held and rested): arbiter's own timing "
             "loop watched by the profiler in another process where it ran, else the profiler's imitation of its "
             "pacing.", "",
             targets_table(doc), "## Per workload", ""]
    for name, summary in doc["summary"].items():
        what = doc["workloads"][name]
        if doc["quick"]:
            what += f" (quick: size {_size(doc['runs'][name])})"
        parts.append(workload_table(name, what, summary))
    parts.append(f"Command: `{doc['command']}`\n")
    return "\n".join(parts)
