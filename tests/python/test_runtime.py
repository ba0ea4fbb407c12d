"""The runtime's ctypes binding: the timing defaults come from the library, and the runner's loop
starts from them (timing._config), with no defaults of its own."""
import json

import pytest

from arbiter_runner import runtime as rt
from arbiter_runner import timing


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_the_defaults_are_the_libraries_and_carry_every_timing_key(runtime, device):
    defaults = runtime.timing_defaults_dict(device)
    assert tuple(defaults) == rt.TIMING_KEYS
    assert defaults["min_samples"] >= 1 and defaults["max_samples"] >= defaults["min_samples"]
    paced = defaults["warmup_time_s"] > 0 and defaults["rest_ratio"] > 0
    assert paced == (device == "cuda")  # the host is not paced


def test_the_loop_takes_the_jobs_keys_over_the_defaults(runtime):
    config = timing._config(runtime, "cpu", {"max_samples": 7, "min_time_s": 0.25}, -1, None)
    defaults = runtime.timing_defaults("cpu")
    assert (config.max_samples, config.min_time_s) == (7, 0.25)
    assert (config.min_samples, config.max_time_s) == (defaults.min_samples, defaults.max_time_s)
    empty = timing._config(runtime, "cpu", {}, -1, None)
    assert empty.min_time_s == defaults.min_time_s and empty.warmup_calls == defaults.warmup_calls


def test_an_unknown_timing_key_is_named_not_ignored(runtime):
    with pytest.raises(ValueError, match="unknown key 'min_time'"):
        timing._config(runtime, "cpu", {"min_time": 0.5}, -1, None)


def test_an_unknown_device_is_refused(runtime):
    with pytest.raises(KeyError):
        runtime.timing_defaults("tpu")


def test_the_record_of_a_timed_call_has_every_field_of_the_list(runtime, tmp_path):
    import torch
    path = tmp_path / "timing.json"
    timing.time_model(runtime, lambda x: x + 1, [[torch.ones(4)]], "cpu", {"min_samples": 2, "max_samples": 3, "min_time_s": 0.0},
                      path)
    record = runtime.last_timing()
    assert set(record) | set(rt.OPTIONAL_RECORD_FIELDS) == set(rt.TIMING_RECORD_FIELDS)
    assert record == json.loads(path.read_text())  # the file and the memory hold one record


def test_a_record_of_other_fields_is_refused_by_name():
    record = {key: None for key in rt.TIMING_RECORD_FIELDS if key != "fallback"}
    assert rt.check_timing_record(dict(record)) == record
    with pytest.raises(RuntimeError, match=r"lacks \['median_ms'\] and has unknown members \['median_us'\]"):
        rt.check_timing_record({**{k: v for k, v in record.items() if k != "median_ms"}, "median_us": 1.0})
