"""The runner's event log (events.jsonl), as frames: each event is one line
`<seq> <length> <json>`, seq counting from 0 without gaps and length the JSON text's byte length,
flushed as written so that the orchestrator learns how far a process got even when it is killed.
The orchestrator reads it strictly (docs/protocol.md, "Events"): bytes that are not the next frame
are a forged channel, never skipped.

Where the orchestrator hands over a channel (ARBITER_EVENTS_FD, docs/protocol.md) the log goes to
that inherited pipe, which the orchestrator stores in a file of its own that solution code cannot
rewrite; otherwise (build, calibrate, suite check, the runner's tests) to the job's events_file."""
import json
import os
import time
import traceback

CHANNEL_ENV = "ARBITER_EVENTS_FD"
# Every event the runner writes; emit refuses any other name. The orchestrator reads the same list
# (include/arbiter/common/event_names.hpp; tests/unit/common/frames_test.cpp holds the two together).
EVENTS = ("start", "gate", "loaded", "weights", "case", "census", "integrity", "timing", "timed", "outside_ready",
          "outside_done", "calibration", "shape_check", "error", "done")
# Held before any solution is imported: replacing json.dumps later does not reach the channel.
_dumps = json.dumps


def _channel_fd():
    """The descriptor the orchestrator named, taken out of the environment that child processes inherit."""
    value = os.environ.pop(CHANNEL_ENV, "")
    return int(value) if value else None


def encode_frame(seq, record):
    """One frame's bytes."""
    payload = _dumps(record).encode("utf-8")
    return b"%d %d " % (seq, len(payload)) + payload + b"\n"


def decode_frames(data):
    """The events of a whole log, in order; raises ValueError naming the first frame that is not
    well formed (the runner's own tests read logs with it; the orchestrator has its own reader).
    A last frame still being written (no newline yet) is left out."""
    events, pos = [], 0
    while pos < len(data) and data.find(b"\n", pos) >= 0:
        seq_end = data.index(b" ", pos)
        length_end = data.index(b" ", seq_end + 1)
        seq, length = int(data[pos:seq_end]), int(data[seq_end + 1:length_end])
        if seq != len(events):
            raise ValueError(f"frame {len(events)} at byte {pos}: sequence {seq}")
        end = length_end + 1 + length
        if data[end:end + 1] != b"\n":
            raise ValueError(f"frame {len(events)} at byte {pos}: length {length} does not end the payload")
        events.append(json.loads(data[length_end + 1:end]))
        pos = end + 1
    return events


def read_events(path):
    """Every event of the log at path."""
    with open(path, "rb") as file:
        return decode_frames(file.read())


class EventLog:
    def __init__(self, path, fd=None):
        fd = _channel_fd() if fd is None else fd
        if fd is not None:
            os.set_inheritable(fd, False)  # the runner's own: no subprocess gets a copy
            self._fd = fd
        else:
            os.makedirs(os.path.dirname(os.fspath(path)) or ".", exist_ok=True)
            self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
        self._seq = 0
        self._start = time.monotonic()
        self._write = os.write  # held: a later os.write swapped by solution code does not carry our frames

    def emit(self, event, **fields):
        """Writes one event; "t" is the seconds since the log was opened (where a run spends its time).
        A name outside EVENTS is the runner's own bug, raised before anything is written."""
        if event not in EVENTS:
            raise ValueError(f"event {event!r} is not one of the protocol's events ({', '.join(EVENTS)})")
        record = {"event": event, "t": round(time.monotonic() - self._start, 3), **fields}
        data = encode_frame(self._seq, record)
        self._seq += 1
        while data:
            data = data[self._write(self._fd, data):]

    def error(self, phase, exc, **fields):
        """Records exc as the run's failure in phase (load, init, case or timing)."""
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        self.emit("error", phase=phase, type=type(exc).__name__, message=str(exc), traceback=text, **fields)

    def close(self):
        os.close(self._fd)
