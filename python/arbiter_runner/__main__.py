"""python3 -m arbiter_runner reference|candidate|build|check|calibrate <job.json>
   python3 -m arbiter_runner facts <solution dir> [--out facts.json]

Exit status: 0 after the "done" event, 1 after an "error" event, 2 when the job file itself is
unusable (no event log can be written then; the message goes to stderr), 3 when the process was
started behind a gate (ARBITER_GATE_FD) that closed without opening."""
import os
import platform
import sys
import time

if sys.argv[1:2] != ["facts"]:  # the facts mode reads sources only: importing torch would cost seconds per solution
    import torch

    from . import calibrate, candidate, reference, suite_check
    from . import runtime as rt
    from .events import EventLog
    from .job import read_job
    from .phases import PhaseFailed, phase

    MODES = {"reference": reference.run, "candidate": candidate.run, "build": candidate.build,
             "check": suite_check.run, "calibrate": calibrate.run}


PROBE_VARIABLES = ("CUDA_INJECTION64_PATH", "ARBITER_PROBE_KEY", "ARBITER_PROBE_OUT")


def _read_job(argv):
    if len(argv) != 2 or argv[0] not in MODES:
        raise ValueError(f"usage: python3 -m arbiter_runner {'|'.join(MODES)} <job.json>")
    mode, job_path = argv
    return mode, read_job(job_path, mode)


def _check_device(job):
    if job["device"] not in rt.DEVICE_CODES:
        raise ValueError(f"unknown device {job['device']!r}")
    if job["device"] == "cuda":
        if not torch.cuda.is_available():
            raise RuntimeError("device cuda requested but torch.cuda.is_available() is False")
        # cuInit now, before any solution code: the driver loads the evidence probe during it, and
        # the probe takes its signing key out of reach (docs/probe.md).
        torch.cuda.init()
        # The probe removed the variables that name it and its files from the process's
        # environment; Python's copy of the environment is taken at start-up: drop them there too.
        for name in PROBE_VARIABLES:
            os.environ.pop(name, None)


def _wait_for_gate(events):
    """A process started ahead of its turn (ARBITER_GATE_FD, docs/protocol.md) waits here, its
    imports and CUDA context made, until the orchestrator opens the gate: one byte. End of file
    means the gate will never open (the orchestrator is gone): False."""
    fd = os.environ.pop("ARBITER_GATE_FD", None)
    if fd is None:
        return True
    started = time.monotonic()
    opened = os.read(int(fd), 1)
    os.close(int(fd))
    events.emit("gate", waited_s=round(time.monotonic() - started, 3), opened=bool(opened))
    return bool(opened)


def run(mode, job, events):
    try:
        with phase(events, "init"):
            _check_device(job)
            runtime = rt.load(job.get("runtime_lib"))
        if not _wait_for_gate(events):
            return 3
        with torch.no_grad():
            MODES[mode](job, runtime, events)
    except PhaseFailed:
        return 1
    except Exception as exc:  # a malformed job key, outside any phase: still an error event
        events.error("init", exc)
        return 1
    events.emit("done")
    return 0


def main(argv):
    if argv and argv[0] == "facts":  # static facts of a solution folder: no job, no runtime
        from . import facts
        return facts.main(argv[1:])
    try:
        mode, job = _read_job(argv)
        events = EventLog(job["events_file"])
    except (OSError, ValueError, KeyError) as exc:
        print(f"arbiter_runner: {exc}", file=sys.stderr)
        return 2
    events.emit("start", mode=mode, python=platform.python_version(), torch=torch.__version__, device=job["device"])
    try:
        return run(mode, job, events)
    finally:
        events.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
