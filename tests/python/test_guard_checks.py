"""What the candidate process observes for the guard (python/arbiter_runner/guard_checks.py), held
against a solution that replaces the builtins the checks would call or keys a memo on `_version`."""
import builtins
import types

import torch

from arbiter_runner import guard_checks


class Deferred(torch.Tensor):
    pass


def fake_runtime():
    symbols = ("arb_time", "arb_last_timing", "arb_hash_bytes", "arb_writer_add", "arb_device_synchronize")
    return types.SimpleNamespace(lib=types.SimpleNamespace(**{symbol: object() for symbol in symbols}))


def test_output_types_see_a_subclass_when_builtins_type_is_replaced():
    real = builtins.type
    builtins.type = lambda obj, *rest: real(obj, *rest) if rest else torch.Tensor
    try:
        found, _ = guard_checks.output_evidence([torch.ones(2).as_subclass(Deferred)], [torch.ones(2)])
    finally:
        builtins.type = real
    assert found and "Deferred" in found[0]


def test_a_replaced_builtin_is_reported():
    watch = guard_checks.Watch(fake_runtime())
    assert watch.patched() == []
    real = builtins.isinstance
    builtins.isinstance = lambda obj, cls: True
    try:
        patched = watch.patched()
    finally:
        builtins.isinstance = real
    assert patched == ["builtins.isinstance"]


def test_overwriting_inputs_leaves_the_version_counter():
    target = torch.zeros(8)
    version = target._version
    guard_checks.overwrite_inputs([target], [torch.ones(8)])
    assert torch.equal(target, torch.ones(8))
    assert target._version == version  # a memo keyed on _version misses the new contents
