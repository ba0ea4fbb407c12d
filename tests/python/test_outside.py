"""The outside clock's batch in the runner (python/arbiter_runner/outside.py): the calls and the
answer run with Python's cyclic collector off, a collection made just before, and the collector
back as it was once the orchestrator has released the batch."""
import gc

import torch

from arbiter_runner import outside
from arbiter_runner.bundle import write_bundle


class FakeClock:
    """The orchestrator's side: notes whether the collector was on at the go and at the answer."""

    def __init__(self, folder):
        self.dir = str(folder)
        self.seen = []

    def wait(self, events, shape_idx, label):
        self.seen.append(("go", gc.isenabled()))

    def answer(self, events, shape_idx, label, host_outputs):
        self.seen.append(("answer", gc.isenabled(), len(host_outputs)))


def test_a_batch_runs_with_the_collector_off_until_its_release(tmp_path, runtime, monkeypatch):
    (tmp_path / "in" / "0").mkdir(parents=True)
    for set_idx in range(2):
        write_bundle(runtime, str(tmp_path / "in" / "0" / f"{set_idx}.arbb"), [torch.full((4,), float(set_idx))])
    collections = []
    monkeypatch.setattr(outside.gc, "collect", lambda *args: collections.append(gc.isenabled()) or 0)
    during_calls = []

    def call(set_idx, inputs):
        during_calls.append(gc.isenabled())
        return inputs[0] * 2

    clock = FakeClock(tmp_path)
    assert gc.isenabled()
    outputs = outside.run_batch({"device": "cpu"}, runtime, None, clock, 0, "candidate", call, 16)
    assert collections == [True]  # collected before the batch, while the collector was still on
    assert clock.seen == [("go", False), ("answer", False, 2)] and during_calls == [False, False]
    assert gc.isenabled()  # back once released
    assert [[t.tolist() for t in out] for out in outputs] == [[[0.0] * 4], [[2.0] * 4]]


def test_a_collector_the_runner_found_off_stays_off(tmp_path, runtime):
    (tmp_path / "in" / "0").mkdir(parents=True)
    write_bundle(runtime, str(tmp_path / "in" / "0" / "0.arbb"), [torch.ones(2)])
    gc.disable()
    try:
        outside.run_batch({"device": "cpu"}, runtime, None, FakeClock(tmp_path), 0, "overhead", lambda i, x: x[0], 8)
        assert not gc.isenabled()
    finally:
        gc.enable()
