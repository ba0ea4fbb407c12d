"""Where each runner process spent its time, from the events.jsonl files under a campaign's
folder (every event carries t, seconds since the process started): per file, the time up to
`loaded`, then per shape the seconds spent in init, cases, stress and timing, and the tail.

    python3 bench/throughput/phases.py <results.db>.d [more folders]"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from arbiter_runner.events import read_events  # noqa: E402 - the runner's own frame reader


def _events(path):
    return read_events(path)


def _summarise(events):
    """[(label, seconds)] in order: the gap before each event is charged to that event's kind
    and shape (a case event closes its case; timed closes the shape's timing)."""
    spent = {}
    previous = 0.0
    for event in events:
        t = float(event.get("t", previous))
        kind = event.get("event", "?")
        shape = event.get("shape_idx")
        label = kind if shape is None else f"{kind}[{shape}]"
        spent[label] = spent.get(label, 0.0) + (t - previous)
        previous = t
    return spent, previous


def main(folders):
    for folder in folders:
        for root, _dirs, files in sorted(os.walk(folder)):
            if "events.jsonl" not in files:
                continue
            events = _events(os.path.join(root, "events.jsonl"))
            mode = next((e.get("mode") for e in events if e.get("event") == "start"), "?")
            spent, total = _summarise(events)
            parts = " ".join(f"{label}={seconds:.1f}" for label, seconds in spent.items() if seconds >= 0.05)
            print(f"{os.path.relpath(root, folder)} mode={mode} total={total:.1f}s: {parts}")


if __name__ == "__main__":
    main(sys.argv[1:])
