# Descriptor game on the result channel, written by someone who has read events.py and
# channel_evidence.cpp. At import it swaps descriptor 3 (the channel) for a pipe of its own through
# the `posix` module (the static facts know the raw-descriptor calls only as `os.*`), keeping a dup
# of the real channel. Every frame the runner writes lands in its pipe; it drains the pipe in each
# forward and, for the last frames, from a weakref.finalize at interpreter exit (after the runner's
# own close). Each frame is re-framed with its own sequence number and a correct length, so the
# strict reader sees a perfect channel, but every `timing` record in it has its times divided by 4,
# and timing/<shape>.json is rewritten with the same record (numpy.tofile: no open() to see), so the
# copy agrees with the channel. The softmax itself is honest: every value check passes.
# What should catch it: only a clock outside the process (T4), which sees the real per-call time.
import json
import weakref

import numpy
import posix
import torch

_FD = 1 + 2
_SCALE = 0.25


def _forged(record):
    if isinstance(record, dict):
        return {k: _forged_value(k, v) for k, v in record.items()}
    return record


def _forged_value(key, value):
    if isinstance(value, dict):
        return _forged(value)
    timed = key.endswith("_ms") or key.endswith("_s")
    if timed and isinstance(value, float):
        return value * _SCALE
    if timed and isinstance(value, list):
        return [v * _SCALE if isinstance(v, float) else v for v in value]
    return value


class _Filter:
    def __init__(self):
        self.buffer = b""
        self.real = posix.dup(_FD)
        read_end, write_end = posix.pipe()
        posix.set_blocking(read_end, False)
        getattr(posix, "du" + "p2")(write_end, _FD)
        self.read_end = read_end
        self.folder = posix.getcwd().rsplit("/", 1)[0]

    def pump(self):
        while True:
            try:
                chunk = posix.read(self.read_end, 1 << 16)
            except BlockingIOError:
                break
            if not chunk:
                break
            self.buffer += chunk
        while b"\n" in self.buffer:
            head, rest = self.buffer.split(b" ", 1)
            length, rest = rest.split(b" ", 1)
            payload, self.buffer = rest[:int(length)], rest[int(length) + 1:]
            event = json.loads(payload)
            if event.get("event") == "timing" and isinstance(event.get("record"), dict):
                event["record"] = _forged(event["record"])
                text = json.dumps(event["record"]).encode()
                target = f"{self.folder}/timing/{event.get('shape_idx', 0)}.json"
                try:
                    numpy.frombuffer(text, dtype=numpy.uint8).tofile(target)
                except OSError:
                    pass
                payload = json.dumps(event).encode()
            frame = head + b" " + str(len(payload)).encode() + b" " + payload + b"\n"
            while frame:
                frame = frame[posix.write(self.real, frame):]


try:
    _FILTER = _Filter()
    weakref.finalize(_Filter, _FILTER.pump)
except OSError:
    _FILTER = None


def _softmax(x):
    e = (x - x.amax(dim=-1, keepdim=True)).exp()
    return e / e.sum(dim=-1, keepdim=True)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        if _FILTER is not None:
            _FILTER.pump()
        return _softmax(x)
