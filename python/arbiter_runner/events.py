"""The runner's event log (events.jsonl): one JSON object per line, flushed as written so that
the orchestrator learns how far a process got even when it is killed."""
import json
import os
import time
import traceback


class EventLog:
    def __init__(self, path):
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
