"""The runner's event log (events.jsonl): one JSON object per line, flushed as written so that
the orchestrator learns how far a process got even when it is killed.

Where the orchestrator hands over a channel (ARBITER_EVENTS_FD, docs/protocol.md) the log goes to
that inherited pipe, which the orchestrator stores in a file of its own that solution code cannot
rewrite; otherwise (build, calibrate, suite check, the runner's tests) to the job's events_file."""
import json
import os
import time
import traceback

CHANNEL_ENV = "ARBITER_EVENTS_FD"


def _channel_fd():
    """The descriptor the orchestrator named, taken out of the environment that child processes inherit."""
    value = os.environ.pop(CHANNEL_ENV, "")
    return int(value) if value else None


class EventLog:
    def __init__(self, path, fd=None):
        fd = _channel_fd() if fd is None else fd
        if fd is not None:
            os.set_inheritable(fd, False)  # the runner's own: no subprocess gets a copy
            self._file = open(fd, "w", encoding="utf-8")
        else:
            os.makedirs(os.path.dirname(os.fspath(path)) or ".", exist_ok=True)
            self._file = open(path, "a", encoding="utf-8")
        self._start = time.monotonic()

    def emit(self, event, **fields):
        """Writes one event; "t" is the seconds since the log was opened (where a run spends its time)."""
        record = {"event": event, "t": round(time.monotonic() - self._start, 3), **fields}
        self._file.write(json.dumps(record) + "\n")
        self._file.flush()

    def error(self, phase, exc, **fields):
        """Records exc as the run's failure in phase (load, init, case or timing)."""
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        self.emit("error", phase=phase, type=type(exc).__name__, message=str(exc), traceback=text, **fields)

    def close(self):
        self._file.close()
