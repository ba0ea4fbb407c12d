"""What a process did before arbiter's timing loop, against the time the profiler reads in the loop:
one fresh process runs the steps named by --steps in order, each `loop` step being arbiter's own
timing loop under torch.profiler (worker.measure_cupti_loop), and writes every loop's numbers.

Steps: call (one call of the workload, input set 0), profiled_call (one call under torch.profiler),
kernelbench (KernelBench's method whole), cupti (the first-calls CUPTI reference whole), time_model
(arbiter's timing loop, unprofiled), reserve:MIB (MIB MiB taken and given back through torch's
caching allocator, which keeps them: the runtime's flush buffer, allocated by the driver for each
loop, then lies elsewhere), empty_cache (torch gives back what it keeps), loop (arbiter's timing
loop under the profiler, recorded).

  python3 bench/timing_fidelity/history.py --runtime-lib <build>/lib/libarbiter_runtime.so \\
      --workload tiny --steps kernelbench,loop --out history.json"""
import argparse
import json
import os
import pathlib
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "python"))

import torch  # noqa: E402

import files  # noqa: E402
import worker  # noqa: E402
import workloads  # noqa: E402

LOOP_KEYS = ("ok", "error", "skipped", "span_median_ms", "median_ms", "plain_span_median_ms", "timer_step_ns",
             "lead_median_ns", "separator_median_ns", "calls", "runtime_median_ms", "sm_clock_mhz")


def _profiled_call(model, input_sets, args):
    if args.device == "cuda":
        worker._profile(lambda: model(*input_sets[0]), os.path.join(args.work, "history_call.json"))
        return
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]):
        model(*input_sets[0])


def _reserve(mib):
    def step(model, input_sets, args):
        del model, input_sets
        torch.empty(mib << 20, dtype=torch.uint8, device=args.device).zero_()
    return step


STEPS = {
    "call": lambda model, input_sets, args: model(*input_sets[0]),
    "profiled_call": _profiled_call,
    "kernelbench": lambda model, input_sets, args: worker.measure_kernelbench(model, input_sets[0], args),
    "cupti": lambda model, input_sets, args: worker.measure_cupti(model, input_sets, args),
    "time_model": worker.measure_arbiter,  # arbiter's loop as its own process runs it, unprofiled
    "empty_cache": lambda model, input_sets, args: torch.cuda.empty_cache() if args.device == "cuda" else None,
}


def _step(name):
    """The body of a step named in --steps (reserve:MIB with its size), or None."""
    kind, sep, size = name.partition(":")
    if kind == "reserve" and sep and size.isdigit() and int(size) > 0:
        return _reserve(int(size))
    return None if sep else STEPS.get(name)


def parse_steps(text):
    """The step names of --steps, in order; ValueError naming the first one that is not a step."""
    steps = [step.strip() for step in text.split(",") if step.strip()]
    for step in steps:
        if step != "loop" and _step(step) is None:
            raise ValueError(f"--steps: unknown step {step!r}; expected loop, reserve:MIB or one of "
                             f"{', '.join(sorted(STEPS))}")
    if not steps:
        raise ValueError("--steps: no step named")
    return steps


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workload", choices=sorted(workloads.WORKLOADS), default="tiny")
    parser.add_argument("--steps", required=True, help="comma-separated steps, in order")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--runtime-lib", default=os.environ.get("ARBITER_RUNTIME_LIB"))
    parser.add_argument("--out", required=True, help="the JSON this process writes")
    args = parser.parse_args(argv)
    try:
        steps = parse_steps(args.steps)
    except ValueError as exc:
        parser.error(str(exc))
    args.quick, args.timing, args.hold_cycles = args.device == "cpu", {}, worker.HOLD_CYCLES
    args.work = tempfile.mkdtemp(prefix="timing_history_")
    model, input_sets, _ = workloads.build(args.workload, args.device, args.quick)
    result = {"workload": args.workload, "steps": steps, "device": args.device, "loops": []}
    with torch.no_grad():
        for index, step in enumerate(steps):
            if step == "loop":
                loop = worker.measure_cupti_loop(model, input_sets, args)
                result["loops"].append({"after": steps[:index], **{k: loop[k] for k in LOOP_KEYS if k in loop}})
                files.write_atomic(args.out, json.dumps(result))
            else:
                _step(step)(model, input_sets, args)
    files.write_atomic(args.out, json.dumps(result))
    for loop in result["loops"]:
        print(",".join(loop["after"]) or "(nothing)", "->", loop.get("span_median_ms"),
              loop.get("error") or loop.get("skipped") or "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
