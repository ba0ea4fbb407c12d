"""The timing fidelity benchmark (bench/timing_fidelity) on its quick CPU path: fresh worker
processes, arbiter's own timing path through the built runtime, the JSON and the Markdown table.
The CUDA-only methods must say they were skipped, never fail."""
import argparse
import json
import os
import subprocess
import statistics
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUN = os.path.join(ROOT, "bench", "timing_fidelity", "run.py")


def test_quick_cpu_run_writes_json_and_table(tmp_path, runtime_lib):
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, RUN, "--device", "cpu", "--quick", "--procs", "2", "--workloads", "tiny",
                           "--runtime-lib", runtime_lib, "--out", str(out)], capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "results.json").read_text())
    assert doc["procs"] == 2 and list(doc["summary"]) == ["tiny"] and doc["complete"]
    runs = doc["runs"]["tiny"]
    assert len(runs["arbiter"]) == 2 and len(runs["baselines"]) == 2
    assert len({run["pid"] for run in runs["arbiter"] + runs["baselines"]}) == 4  # every one a fresh process
    for run in runs["arbiter"]:
        assert run["arbiter"]["ok"], run
        assert run["arbiter"]["timing_json"]["median_ms"] == run["arbiter"]["result"]["median_ms"]
        assert run["arbiter"]["timing_json"]["clock"] == "steady_clock"
    for run in runs["baselines"]:
        assert run["kernelbench"]["ok"] and run["kernelbench"]["calls"] == 10
        assert run["do_bench"] == {"ok": False, "skipped": "skipped: needs cuda"}
        assert run["cupti"] == {"ok": False, "skipped": "skipped: needs cuda"}
        assert run["cupti_sustained"] == {"ok": False, "skipped": "skipped: needs cuda"}
    summary = doc["summary"]["tiny"]
    assert summary["reference_ms"] is None
    assert summary["arbiter"]["processes"] == 2 and summary["arbiter"]["value_ms"] > 0
    assert summary["arbiter"]["spread"] >= 0 and summary["arbiter"]["error_pct"] is None
    assert summary["cupti"]["why"] == "skipped: needs cuda"
    assert summary["arbiter_cupti"]["why"] == "skipped: needs cuda"  # the probe's spans are arbiter's cuda time
    table = (out / "results.md").read_text()
    assert "| workload | CUPTI kernel time | arbiter device time | arbiter held events | arbiter host latency |" in table
    assert "### tiny" in table and "| arbiter held events (the runtime's median_ms) | " in table
    assert sorted(os.listdir(out)) == ["results.json", "results.md"]


def test_timing_overrides_reach_arbiters_processes_and_are_recorded(tmp_path, runtime_lib):
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, RUN, "--device", "cpu", "--quick", "--procs", "1", "--workloads", "tiny",
                           "--timing", "rest_ratio=0.5", "--timing", "min_samples=12", "--runtime-lib", runtime_lib,
                           "--hold-cycles", "30000", "--out", str(out)], capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "results.json").read_text())
    assert doc["timing_overrides"] == {"rest_ratio": 0.5, "min_samples": 12}
    timing_json = doc["runs"]["tiny"]["arbiter"][0]["arbiter"]["timing_json"]
    assert timing_json["rest_ratio"] == 0.5 and timing_json["rest_s"] > 0
    assert timing_json["samples"] >= 12
    assert "overridden: rest_ratio = 0.5, min_samples = 12; the sustained reference's hold spins 30000 SM cycles" in (
        out / "results.md").read_text()
    assert doc["hold_cycles"] == 30000

    bad = subprocess.run([sys.executable, RUN, "--device", "cpu", "--quick", "--timing", "rest=1", "--runtime-lib",
                          runtime_lib, "--out", str(tmp_path / "bad")], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--timing 'rest=1': expected KEY=VALUE with KEY one of" in bad.stderr
    assert not (tmp_path / "bad").exists()


def test_a_run_cut_short_keeps_the_workloads_it_finished(tmp_path):
    sys.path.insert(0, os.path.join(ROOT, "bench", "timing_fidelity"))
    import run

    args = run.parse_args(["--device", "cpu", "--workloads", "tiny,softmax", "--runtime-lib", __file__,
                           "--out", str(tmp_path / "out")])
    tiny = {"arbiter": [{"mode": "arbiter", "arbiter": {"ok": True, "result": {"median_ms": 0.5}}}], "baselines": []}
    run.write_results(args, ["run.py"], {"tiny": tiny}, 0.0)  # as after the first of two workloads
    doc = json.loads((tmp_path / "out" / "results.json").read_text())
    assert doc["complete"] is False and list(doc["summary"]) == ["tiny"]
    assert doc["summary"]["tiny"]["arbiter"]["value_ms"] == 0.5
    assert "**Incomplete**" in (tmp_path / "out" / "results.md").read_text()
    assert sorted(os.listdir(tmp_path / "out")) == ["results.json", "results.md"]


def test_the_sustained_reference_makes_its_calls_as_arbiter_makes_its_samples(monkeypatch, runtime):
    sys.path.insert(0, os.path.join(ROOT, "bench", "timing_fidelity"))
    import timing_config
    import worker

    events = []
    monkeypatch.setattr(worker.torch.cuda, "synchronize", lambda: events.append("sync"))
    monkeypatch.setattr(worker.time, "sleep", lambda seconds: events.append(("rest", seconds)))
    monkeypatch.setattr(worker, "reset_persisting_l2", lambda: events.append("reset_l2"))
    monkeypatch.setattr(worker.torch.cuda, "_sleep", lambda cycles: events.append(("hold", cycles)))
    clock = iter([10.0, 10.004, 20.0])  # the first call's wall time: 4 ms
    monkeypatch.setattr(worker.time, "perf_counter", lambda: next(clock))

    class Flush:
        def fill_(self, value):
            events.append("flush")

    arbiters = worker.paced(timing_config.arbiter_config(runtime, "cuda", False, {}))
    assert arbiters == {"warm_s": 0.3, "rest_ratio": 0.5, "sync_after_flush": True, "reset_persisting_l2": True,
                        "hold_cycles": worker.HOLD_CYCLES}
    worker._flushed_call(lambda x: events.append(("call", x)), [(1,), (2,)], Flush(), 3, arbiters)
    # prepared as arbiter's clock prepares a sample, queued behind a hold, on the rotated input set
    assert events[:6] == ["flush", "reset_l2", "sync", ("hold", worker.HOLD_CYCLES), ("call", 2), "sync"]
    assert events[6][0] == "rest" and abs(events[6][1] - 0.002) < 1e-9
    events.clear()
    worker._flushed_call(lambda x: events.append(("call", x)), [(1,), (2,)], Flush(), 0, worker.KERNELBENCH_PACING)
    assert events == ["flush", ("call", 1), "sync"]  # KernelBench's: queued behind the flush, no rest
    events.clear()
    clock = iter([10.0, 10.004])
    worker._flushed_call(lambda x: events.append(("call", x)), [(1,)], Flush(), 0, worker.paced(
        timing_config.arbiter_config(runtime, "cuda", False, {}), hold_cycles=20_000))
    assert ("hold", 20_000) in events  # --hold-cycles: another length of hold


def test_summary_errors_are_against_cupti():
    sys.path.insert(0, os.path.join(ROOT, "bench", "timing_fidelity"))
    import report
    baselines = [{"cupti": {"ok": True, "median_ms": v, "span_median_ms": v * 1.1},
                  "kernelbench": {"ok": True, "mean_ms": v * 1.5},
                  "do_bench": {"ok": False, "error": "RuntimeError: boom"}} for v in (1.0, 1.0, 2.0)]
    arbiter = [{"arbiter": {"ok": True, "result": {"median_ms": m}, "timing_json": {"median_ms": m, "host_median_ms": m + 1}}}
               for m in (1.1, 1.2, 1.0)]
    arbiter.append({"returncode": -9})
    summary = report.summarize({"arbiter": arbiter, "baselines": baselines})
    assert summary["reference_ms"] == 1.0
    assert abs(summary["arbiter"]["value_ms"] - 1.1) < 1e-12
    assert abs(summary["arbiter"]["error_pct"] - 10.0) < 1e-9
    assert abs(summary["arbiter"]["spread"] - 0.2 / 1.1) < 1e-12
    assert summary["arbiter"]["failed_processes"] == ["no result (exit -9)"]
    assert abs(summary["arbiter_host"]["value_ms"] - 2.1) < 1e-12
    assert abs(summary["kernelbench"]["error_pct"] - 50.0) < 1e-9
    assert summary["do_bench"]["value_ms"] is None and summary["do_bench"]["why"] == "RuntimeError: boom"


def test_cupti_trace_is_split_into_calls_at_the_flush(tmp_path):
    sys.path.insert(0, os.path.join(ROOT, "bench", "timing_fidelity"))
    import worker
    flush = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<unsigned char> >"
    events = [{"ph": "X", "cat": "cpu_op", "name": "aten::fill_", "ts": 0.0, "dur": 50.0}]
    for call_idx in range(3):
        base = 1000.0 * call_idx
        events += [{"ph": "X", "cat": "kernel", "name": flush, "ts": base, "dur": 100.0},
                   {"ph": "X", "cat": "kernel", "name": "gemm", "ts": base + 200.0, "dur": 30.0},
                   {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "ts": base + 190.0, "dur": 2.0},
                   {"ph": "X", "cat": "Kernel", "name": "relu", "ts": base + 240.0, "dur": 8.0}]
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps({"traceEvents": events}))
    calls = [call for _, call in worker._split(worker._device_activities(str(trace)), {flush})]
    assert len(calls) == 3
    assert [name for _, _, name in calls[0]] == ["Memset (Device)", "gemm", "relu"]
    assert sum(dur for _, dur, _ in calls[1]) == 40.0


def test_where_each_calls_first_kernel_starts_is_read_on_both_sides(tmp_path):
    """The time from the end of the kernel before a call (arbiter's hold; the profiler's hold or
    flush) to the call's first kernel: a kernel started on an idle GPU runs longer, so a difference
    between the two sides' starts explains a difference between their times."""
    sys.path.insert(0, os.path.join(ROOT, "bench", "timing_fidelity"))
    import report
    import run
    import worker
    # The profiler's sustained calls: flush, hold, then the call's two kernels (times in µs).
    activities = []
    for call_idx, lead_us in enumerate((0.5, 0.7, 0.6)):
        base = 1000.0 * call_idx
        activities += [(base, 50.0, "flush"), (base + 60.0, 100.0, "hold"), (base + 160.0 + lead_us, 1.25, "add"),
                       (base + 162.0 + lead_us, 1.0, "mul")]
    leads, lengths = worker._leads(worker._split(activities, {"flush", "hold"}))
    assert [round(v) for v in leads] == [500, 700, 600] and lengths == [100_000.0] * 3
    # The first calls: no hold, the call after the flush.
    leads, lengths = worker._leads(worker._split([a for a in activities if a[2] != "hold"], {"flush"}))
    assert [round(v) for v in leads] == [110_500, 110_700, 110_600] and lengths == [50_000.0] * 3
    # arbiter's samples: its hold kernel in each sample window, the call's kernel after it.
    windows = [{"label": "sample"}, {"label": "case"}, {"label": "sample"}, {"label": "sample"}]
    kernels = [{"name": "add", "start_ns": 50_608, "end_ns": 51_856, "window": 0},
               {"name": "arbiter_hold", "start_ns": 30_000, "end_ns": 50_000, "window": 0},
               {"name": "add", "start_ns": 70_000, "end_ns": 71_248, "window": 1},
               {"name": "arbiter_hold", "start_ns": 80_000, "end_ns": 90_000, "window": 2},
               {"name": "add", "start_ns": 90_640, "end_ns": 91_888, "window": 2},
               {"name": "add", "start_ns": 99_000, "end_ns": 100_248, "window": 3}]  # its hold not listed
    assert run.hold_leads({"windows": windows, "kernels": kernels}) == {
        "lead_median_ns": 624.0, "hold_median_ns": 15_000.0, "leads_listed": 2}
    baselines = [{"cupti": {"ok": True, "median_ms": 0.00128, "lead_median_ns": 110_000.0, "separator_median_ns": 50_000.0},
                  "cupti_sustained": {"ok": True, "median_ms": 0.0013, "lead_median_ns": 600.0,
                                      "separator_median_ns": 100_000.0},
                  "cupti_loop": {"ok": True, "span_median_ms": 0.00125, "lead_median_ns": 640.0,
                                 "separator_median_ns": 16_000.0}}]
    arbiter = [{"arbiter_probe": {"ok": True, "median_ms": 0.00125, "busy_median_ms": 0.00125, "lead_median_ns": 624.0,
                                  "hold_median_ns": 15_000.0}}]
    summary = report.summarize({"arbiter": arbiter, "baselines": baselines})
    table = report.workload_table("tiny", "add", summary)
    assert ("arbiter's samples 624 ns after a hold of 15.0 µs; the same loop under the profiler 640 ns after a hold "
            "of 16.0 µs; the profiler's sustained calls 600 ns after a hold of 100.0 µs; its first calls 110000 ns after "
            "a flush of 50.0 µs") in table
    assert "first kernel starts" not in report.workload_table("tiny", "add", report.summarize(
        {"arbiter": [], "baselines": [{"cupti": {"ok": True, "median_ms": 0.001}}]}))


def test_device_time_is_compared_with_the_kernel_time_of_its_own_process(tmp_path):
    sys.path.insert(0, os.path.join(ROOT, "bench", "timing_fidelity"))
    import report
    import run
    lib = tmp_path / "libarbiter_probe.so"
    lib.write_text("")
    probe = tmp_path / "probe.json"
    # Three samples of two kernels with a gap (span > busy), a window without work, a case window.
    windows = [{"label": "sample", "kernels": 2, "span_ns": 1100, "busy_ns": 1000} for _ in range(3)]
    windows += [{"label": "sample", "kernels": 0, "span_ns": 0, "busy_ns": 0},
                {"label": "case", "kernels": 5, "span_ns": 9000, "busy_ns": 9000}]
    probe.write_text(json.dumps({"windows": windows}))
    got = run.probe_spans(str(probe), str(lib), "cuda")
    assert got == {"ok": True, "median_ms": 0.0011, "all_median_ms": 0.0011, "dropped_ignored": False,
                   "busy_median_ms": 0.001, "timer_step_ns": 0,
                   "plain_median_ms": 0.0011, "samples": 4, "span_readings_ns": {0: 1, 1100: 3},
                   "lead_median_ns": None, "hold_median_ns": None, "leads_listed": 0}
    assert run.probe_spans(str(probe), str(lib), "cpu")["skipped"] == "skipped: needs cuda"
    runs = [{"arbiter_probe": got}, {"arbiter_probe": dict(got, median_ms=0.0012)}, {"arbiter_probe": {"ok": False}}]
    summary = report.summarize({"arbiter": runs, "baselines": [{"cupti": {"ok": True, "median_ms": 0.001}}]})
    assert abs(summary["same_process_error_pct"] - 15.0) < 1e-9  # median of +10% and +20%
    assert abs(summary["arbiter_busy"]["value_ms"] - 0.001) < 1e-12
    doc = {"summary": {"w": summary}}
    assert "| +15.0% |" in report.summary_table(doc)
    # The device time is a span: beside the profiler's span (first kernel's start to last one's end).
    spans = [{"cupti": {"ok": True, "median_ms": 0.001, "span_median_ms": 0.0011}}]
    assert abs(report.summarize({"arbiter": runs, "baselines": spans})["span_error_pct"] - 4.545454) < 1e-4


def test_device_time_leaves_out_the_samples_the_runtime_dropped(tmp_path):
    """The runtime's dropped_idx (the samples it left out of its stats: throttled) leaves their
    windows out of the device time, as the judge does; a list that would lower the median by more
    than 1% is not believed: it is ignored and flagged."""
    sys.path.insert(0, os.path.join(ROOT, "bench", "timing_fidelity"))
    import run
    lib = tmp_path / "libarbiter_probe.so"
    lib.write_text("")
    probe = tmp_path / "probe.json"
    spans = [300_000, 301_500, 300_000, 301_500, 301_500]
    probe.write_text(json.dumps({"windows": [{"label": "sample", "index": i, "kernels": 1, "span_ns": v, "busy_ns": v}
                                             for i, v in enumerate(spans)]}))
    got = run.probe_spans(str(probe), str(lib), "cuda", [1, 3, 4])
    assert (got["median_ms"], got["all_median_ms"], got["samples"], got["dropped_ignored"]) == (0.3, 0.3015, 2, False)
    spans[1:] = [330_000] * 4
    probe.write_text(json.dumps({"windows": [{"label": "sample", "index": i, "kernels": 1, "span_ns": v, "busy_ns": v}
                                             for i, v in enumerate(spans)]}))
    got = run.probe_spans(str(probe), str(lib), "cuda", [1, 2, 3, 4])
    assert (got["median_ms"], got["samples"], got["dropped_ignored"]) == (0.33, 5, True)


def test_both_sides_take_their_medians_inside_the_gpu_timers_step(tmp_path):
    """A 1.25 µs kernel on a timer that steps 32 ns reads 1248 or 1280 ns: arbiter's side (the
    probe's exact nanoseconds) and the profiler's (kineto's converted microseconds, ±1 ns) both
    resolve between the two readings, as src/score/metrics.cpp's stepped_median does."""
    sys.path.insert(0, os.path.join(ROOT, "bench", "timing_fidelity"))
    import run
    import stepped
    lib = tmp_path / "libarbiter_probe.so"
    lib.write_text("")
    probe = tmp_path / "probe.json"
    readings = [1248] * 6 + [1280] * 4
    windows = [{"label": "sample", "kernels": 1, "span_ns": r, "busy_ns": r} for r in readings]
    # The listed kernels: the tiny one's two readings and sixteen short kernels of other lengths.
    kernels = [{"start_ns": 10_016, "end_ns": 11_264}, {"start_ns": 20_000, "end_ns": 21_280}]
    kernels += [{"start_ns": 30_000, "end_ns": 30_000 + 32 * (100 + 7 * i)} for i in range(16)]
    # A long hold drifts off the step in CUPTI's mapping onto the host's clock: it reads no step.
    kernels.append({"start_ns": 50_000, "end_ns": 90_003})
    probe.write_text(json.dumps({"windows": windows, "kernels": kernels[:1]}))
    # One kernel listed gives no step to trust (its own duration would be one): the plain median.
    got = run.probe_spans(str(probe), str(lib), "cuda")
    assert got["timer_step_ns"] == 0 and got["median_ms"] == 0.001248
    probe.write_text(json.dumps({"windows": windows, "kernels": kernels}))
    got = run.probe_spans(str(probe), str(lib), "cuda")
    inside = (1232 + 32 * 5 / 6) / 1e6  # 5/6 of the way through the 1248 ns step [1232, 1264)
    assert got["timer_step_ns"] == 32
    assert abs(got["median_ms"] - inside) < 1e-15 and abs(got["busy_median_ms"] - inside) < 1e-15
    assert got["plain_median_ms"] == 0.001248
    # The profiler's durations: the same readings off by kineto's rounding, among a flush's and a hold's.
    converted = [r + (0.9, -1.0, 0.4, 0.0)[i % 4] for i, r in enumerate(readings)] + [100_032.6, 98_016.2] * 10
    step = stepped.converted_step_ns(converted)
    assert step == 32
    assert abs(stepped.stepped_median(stepped.snapped(converted[:10], step), step) / 1e6 - inside) < 1e-15
    # An even count of readings far apart: between the two middle ones, as the plain median.
    assert stepped.stepped_median([3200, 6400, 9600, 12800], 32) == 8000
    # A step one reading does not keep to is not their clock's: the plain median.
    assert stepped.stepped_median([1248, 1250, 1250, 1280, 1280], 32) == 1250
    # Too few durations to trust a common step: none is assumed.
    assert stepped.converted_step_ns([1248.2, 1280.9]) == 1
    # Durations with no step at all: none is found (not the smallest step every value is near).
    assert stepped.converted_step_ns([1000 + 37 * i + 0.5 * (i % 3) for i in range(40)]) == 1
    # The probe's timer mapped onto the host's clock: every duration and span within a nanosecond of
    # the 32 ns steps, no common divisor left. The step is read within that nanosecond, and the
    # median is the one on the steps.
    off = [(0, 1, -1)[i % 3] for i in range(len(kernels))]
    kernels = [dict(k, end_ns=k["end_ns"] + o) for k, o in zip(kernels, off)]
    windows = [dict(w, span_ns=w["span_ns"] + o, busy_ns=w["busy_ns"] - o) for w, o in zip(windows, off[1:])]
    probe.write_text(json.dumps({"windows": windows, "kernels": kernels}))
    got = run.probe_spans(str(probe), str(lib), "cuda")
    assert got["timer_step_ns"] == 32
    assert abs(got["median_ms"] - inside) < 1e-15 and abs(got["busy_median_ms"] - inside) < 1e-15
    # A span 3 ns off the step is not its clock's: the plain median.
    windows[0]["span_ns"] += 3
    probe.write_text(json.dumps({"windows": windows, "kernels": kernels}))
    assert run.probe_spans(str(probe), str(lib), "cuda")["median_ms"] == statistics.median(w["span_ns"] for w in windows) / 1e6


def test_the_profiler_on_arbiters_loop_keeps_only_its_held_samples():
    """The reference that watches arbiter's own timing loop: of everything the loop puts on the
    device, only the calls queued behind the runtime's hold are its timed samples (times in µs)."""
    sys.path.insert(0, os.path.join(ROOT, "bench", "timing_fidelity"))
    import worker
    memset, hold, sequence = "Memset (Device)", "arbiter_hold", ["gemm", "relu"]
    activities = [(0.0, 20.0, hold), (21.0, 2.0, "arbiter_empty"),  # the clock's floor, measured once
                  (100.0, 80.0, memset), (200.0, 50.0, "gemm"), (251.0, 5.0, "relu")]  # a warm-up call, unheld
    for i, lead in enumerate((1.0, 1.5, 2.0)):  # three samples: flush, hold, the call behind it
        base = 1000.0 * (i + 1)
        activities += [(base, 80.0, memset), (base + 100.0, 30.0, hold), (base + 130.0 + lead, 50.0, "gemm"),
                       (base + 181.0 + lead, 5.0, "relu")]
    activities += [(5000.0, 80.0, memset), (5100.0, 50.0, "gemm"), (5151.0, 5.0, "relu")]  # a host-latency call
    activities += [(6000.0, 80.0, memset), (6100.0, 30.0, hold), (6131.0, 50.0, "gemm"),
                   (6181.0, 2.0, memset), (6200.0, 5.0, "relu")]  # a stray memset cuts the sample short
    groups = worker._held_calls(sorted(activities), sequence)
    assert [len(call) for _, call in groups] == [2, 2, 2, 1]
    # A call that memsets its own output: the next flush's memset is not taken into its sample.
    gemm_call = ["Memset (Device)", "gemm"]
    loop = [(0.0, 30.0, hold), (31.0, 1.0, memset), (32.0, 50.0, "gemm"), (100.0, 80.0, memset),
            (200.0, 30.0, hold), (231.0, 1.0, memset), (232.0, 50.0, "gemm"), (300.0, 80.0, memset)]
    assert [[name for _, _, name in call] for _, call in worker._held_calls(loop, gemm_call)] == [gemm_call] * 2
    leads, holds = worker._leads(groups)
    assert [round(v) for v in leads] == [1000, 1500, 2000, 1000] and holds == [30_000.0] * 4
    stats = worker._call_stats([call for _, call in groups][:3])
    assert stats["calls"] == 3 and stats["kernels_per_call"] == 2 and stats["kernel_names"] == ["gemm", "relu"]
    assert abs(stats["span_median_ms"] - 0.056) < 1e-12 and abs(stats["median_ms"] - 0.055) < 1e-12
    cpu = argparse.Namespace(device="cpu")
    assert worker.measure_cupti_loop(None, [], cpu) == {"ok": False, "skipped": worker.NEEDS_CUDA}


def test_device_time_is_also_compared_with_the_kernel_time_in_the_sustained_clock_state():
    sys.path.insert(0, os.path.join(ROOT, "bench", "timing_fidelity"))
    import report
    # A kernel that runs 1.0 ms at boost and 1.1 ms once the GPU has settled into its power cap:
    # arbiter samples after its warm-up by time, so its 1.1 ms is compared with the settled 1.1 ms.
    baselines = [{"cupti": {"ok": True, "median_ms": 1.0}, "cupti_sustained": {"ok": True, "median_ms": s}}
                 for s in (1.1, 1.1, 1.12)]
    arbiter = [{"arbiter_probe": {"ok": True, "median_ms": 1.111, "busy_median_ms": 1.111}}]
    summary = report.summarize({"arbiter": arbiter, "baselines": baselines})
    assert abs(summary["cupti_sustained"]["error_pct"] - 10.0) < 1e-9
    assert abs(summary["arbiter_cupti"]["error_pct"] - 11.1) < 1e-9
    assert abs(summary["sustained_error_pct"] - 1.0) < 1e-9
    assert summary["cupti_sustained"]["processes"] == 3
    assert "| +11.1% |" not in report.summary_table({"summary": {"w": summary}})  # a cell, not a column
    assert report.summary_table({"summary": {"w": summary}}).rstrip().endswith("| +0.0% | +1.0% | — | — |")
    missing = report.summarize({"arbiter": arbiter, "baselines": [{"cupti": {"ok": True, "median_ms": 1.0}}]})
    assert missing["sustained_error_pct"] is None


def test_each_arbiter_process_shows_its_time_beside_the_clock_it_ran_at():
    sys.path.insert(0, os.path.join(ROOT, "bench", "timing_fidelity"))
    import report

    def process(ms, mhz, **counts):
        return {"arbiter": {"ok": True, "result": {"median_ms": ms + 0.005},
                            "timing_json": {"median_ms": ms + 0.005, "sm_clock_mhz": mhz, **counts}},
                "arbiter_probe": {"ok": True, "median_ms": ms, "busy_median_ms": ms}}
    runs = [process(0.3014, 1980.0, power_capped_samples=0, samples=444),
            process(0.3026, 1965.0, power_capped_samples=358, samples=426), process(0.2966, 1845.0), {"returncode": -9}]
    # A sample the device throttled is not in the stats, and is in the record's clock readings.
    runs.append(process(0.3015, 1965.0, power_capped_samples=358, samples=425, sample_sm_mhz=[1965] * 426))
    summary = report.summarize({"arbiter": runs, "baselines": []})
    assert summary["arbiter_clocks"] == [(0.3014, 1980.0, 0, 444), (0.3026, 1965.0, 358, 426),
                                         (0.2966, 1845.0, None, None),  # the probe's time, not the events'
                                         (0.3015, 1965.0, 358, 426)]
    table = report.workload_table("multi", "several kernels", summary)
    assert ("0.3014 ms @ 1980 MHz (0 of 444 samples power-capped), "
            "0.3026 ms @ 1965 MHz (358 of 426 samples power-capped), 0.2966 ms @ 1845 MHz, "
            "0.3015 ms @ 1965 MHz (358 of 426 samples power-capped)\n") in table
    cpu = report.summarize({"arbiter": [{"arbiter": {"ok": True, "result": {"median_ms": 1.0},
                                                     "timing_json": {"median_ms": 1.0}}}], "baselines": []})
    assert cpu["arbiter_clocks"] == [] and "MHz" not in report.workload_table("tiny", "add", cpu)


def test_each_workload_is_judged_against_both_targets():
    sys.path.insert(0, os.path.join(ROOT, "bench", "timing_fidelity"))
    import report

    def workload(arbiter_ms, sustained_spans, kernelbench_ms):
        baselines = [{"cupti": {"ok": True, "median_ms": 1.0},
                      "cupti_sustained": {"ok": True, "median_ms": 0.9, "span_median_ms": span},
                      "kernelbench": {"ok": True, "mean_ms": kb}, "do_bench": {"ok": False, "error": "no triton"}}
                     for span, kb in zip(sustained_spans, kernelbench_ms)]
        arbiter = [{"arbiter_probe": {"ok": True, "median_ms": ms, "busy_median_ms": ms}} for ms in arbiter_ms]
        return report.summarize({"arbiter": arbiter, "baselines": baselines})

    # spread 2.0% against KernelBench's 9.5%; 1.01 ms against the sustained span's median 1.0 ms
    good = workload([1.00, 1.01, 1.02], [0.99, 1.0, 1.0], [1.0, 1.05, 1.1])
    assert good["targets"]["spread"]["best_peer"] == "kernelbench" and good["targets"]["spread"]["met"] is True
    assert abs(good["targets"]["error"]["pct"] - 1.0) < 1e-9 and good["targets"]["error"]["met"] is True
    # spread 5.8% against 9.5% (more than half); 3% above the span
    bad = workload([1.0, 1.03, 1.06], [1.0, 1.0, 1.0], [1.0, 1.05, 1.1])
    assert bad["targets"]["spread"]["met"] is False and bad["targets"]["error"]["met"] is False
    # a sum of kernel durations is not the like of a span: without the sustained span, no verdict
    unjudged = workload([1.0, 1.0, 1.0], [None, None, None], [1.0, 1.0, 1.0])
    assert unjudged["targets"]["error"] == {"against": "cupti_sustained", "against_ms": None, "pct": None, "met": None}
    table = report.targets_table({"summary": {"good": good, "bad": bad, "unjudged": unjudged}})
    assert "| good | 2.0% | 9.5% (KernelBench) | **met** | +1.0% (the profiler's imitation) | **met** |" in table
    assert "| bad | 5.8% | 9.5% (KernelBench) | **not met** | +3.0% (the profiler's imitation) | **not met** |" in table
    assert "| unjudged | 0.0% | 0.0% (KernelBench) | **met** | — | — |" in table
    # The profiler watching arbiter's own timing loop is the like of arbiter's samples: where it ran,
    # the target is judged against its span, whatever the imitation read.
    assert workload([1.00, 1.01, 1.02], [0.9, 0.9, 0.9], [1.0, 1.05, 1.1])["targets"]["error"]["met"] is False
    baselines = [{"cupti": {"ok": True, "median_ms": 1.0},
                  "cupti_sustained": {"ok": True, "median_ms": 0.9, "span_median_ms": 0.9},
                  "cupti_loop": {"ok": True, "span_median_ms": span},
                  "cupti_loop_after": {"ok": True, "span_median_ms": 0.9},  # the loop again, later: shown, not judged
                  "kernelbench": {"ok": True, "mean_ms": kb}} for span, kb in zip([1.0, 1.0, 1.02], [1.0, 1.05, 1.1])]
    arbiter = [{"arbiter_probe": {"ok": True, "median_ms": ms, "busy_median_ms": ms}} for ms in [1.00, 1.01, 1.02]]
    looped = report.summarize({"arbiter": arbiter, "baselines": baselines})
    assert looped["targets"]["error"]["against"] == "cupti_loop" and looped["targets"]["error"]["met"] is True
    assert abs(looped["loop_error_pct"] - 1.0) < 1e-9 and abs(looped["sustained_error_pct"] - 12.2222) < 1e-3
    assert "| +1.0% (the profiler on arbiter's loop) | **met** |" in report.targets_table({"summary": {"w": looped}})
    assert "| the same, again after the other methods in that process (its history changed) | 0.9000 | 0.0% | -10.0% | 3 |" \
        in report.workload_table("w", "what", looped)


def test_restep_takes_an_older_runs_references_again_inside_the_timers_step(tmp_path):
    """restep.py: the per-call sums a baseline process stored, the profiler's median taken again
    inside the step, per process and over processes."""
    sums_ms = [(r + 0.4) / 1e6 for r in [1248] * 30 + [1280] * 20]  # kineto's conversion: off by 0.4 ns
    doc = {"runs": {"tiny": {"arbiter": [], "baselines": [
        {"cupti_sustained": {"ok": True, "sums_ms": sums_ms}}, {"cupti": {"ok": False, "error": "x"}}]}}}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc))
    out = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "timing_fidelity", "restep.py"), str(path)],
                         capture_output=True, text=True, check=True).stdout
    rows = [line for line in out.splitlines() if line.startswith("| tiny")]
    # 30 of 50 at 1248: the middle falls 25/30 of the way through the step [1232, 1264).
    assert rows == [f"| tiny | cupti_sustained | 32 | 1248.4 → {1232 + 32 * 25 / 30:.1f} | 1248.4 → {1232 + 32 * 25 / 30:.1f} |"]


def test_history_runs_its_steps_in_order_and_says_what_came_before_each_loop(tmp_path, runtime_lib):
    history = os.path.join(ROOT, "bench", "timing_fidelity", "history.py")
    out = tmp_path / "history.json"
    steps = "call,time_model,loop,reserve:4,empty_cache,kernelbench,loop"
    proc = subprocess.run([sys.executable, history, "--device", "cpu", "--steps", steps,
                           "--runtime-lib", runtime_lib, "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    loops = json.loads(out.read_text())["loops"]
    assert [loop["after"] for loop in loops] == [
        ["call", "time_model"], ["call", "time_model", "loop", "reserve:4", "empty_cache", "kernelbench"]]
    assert all(loop["skipped"] == "skipped: needs cuda" for loop in loops)  # the profiler's loop needs the GPU
    for step in ("warmup", "reserve:0", "reserve"):
        bad = subprocess.run([sys.executable, history, "--device", "cpu", "--steps", f"call,{step}", "--out", str(out)],
                             capture_output=True, text=True, timeout=120)
        assert bad.returncode == 2 and f"unknown step '{step}'" in bad.stderr


def test_histories_runs_each_listed_history_in_fresh_processes_and_tabulates_them(tmp_path, runtime_lib):
    histories = os.path.join(ROOT, "bench", "timing_fidelity", "histories.py")
    listed = tmp_path / "histories.txt"
    listed.write_text("# a comment\ncall,loop\n\nreserve:4,loop  # memory kept\n")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, histories, "--device", "cpu", "--procs", "2", "--histories", str(listed),
                           "--runtime-lib", runtime_lib, "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "results.json").read_text())
    assert [(row["steps"], row["rep"]) for row in doc["processes"]] == [
        (["call", "loop"], 0), (["call", "loop"], 1), (["reserve:4", "loop"], 0), (["reserve:4", "loop"], 1)]
    assert "| reserve:4,loop | 1 | skipped: needs cuda |" in (out / "results.md").read_text()
    assert sorted(path.name for path in out.iterdir()) == ["results.json", "results.md"]  # each process folded in
    for text, why in (("call,bogus\n", "unknown step 'bogus'"), ("call\n", "'call' has no loop step"),
                      ("# none\n", "no history")):
        listed.write_text("call,loop\n" + text if why != "no history" else text)
        bad = subprocess.run([sys.executable, histories, "--device", "cpu", "--histories", str(listed), "--out", str(out)],
                             capture_output=True, text=True, timeout=120)
        assert bad.returncode == 2 and why in bad.stderr and str(listed) in bad.stderr, bad.stderr
        if why != "no history":
            assert f"{listed}:2:" in bad.stderr
