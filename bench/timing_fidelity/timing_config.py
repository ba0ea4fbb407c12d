"""The timing settings arbiter's path runs with in the benchmark: `arbiter eval`'s defaults for the
device, --quick's short timing, then each --timing KEY=VALUE override (for comparing settings in
one run; results.json records them)."""
import pathlib
import sys

# The runtime's own kernel that holds the harness stream while the host queues a sample's call
# (src/runtime/stream_hold.cpp): the probe's evidence and the profiler's traces name it.
HOLD_KERNEL = "arbiter_hold"
INTEGER_KEYS = ("warmup_calls", "min_samples", "max_samples", "l2_flush_bytes")
QUICK = {"warmup_time_s": 0.0, "min_time_s": 0.0, "max_time_s": 0.3}  # --quick: short timing on either device


def _keys():
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
    from arbiter_runner import runtime as rt
    return rt.TIMING_KEYS


def parse_overrides(items):
    """{key: number} from KEY=VALUE strings; raises ValueError naming the item that is not one of
    the job file's timing keys (arbiter_runner.runtime.TIMING_KEYS) with a number."""
    overrides = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or key not in _keys():
            raise ValueError(f"--timing {item!r}: expected KEY=VALUE with KEY one of {', '.join(_keys())}")
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"--timing {item!r}: {value!r} is not a number") from None
        overrides[key] = int(number) if key in INTEGER_KEYS else number
    return overrides


def arbiter_config(runtime, device, quick, overrides):
    """The timing dict arbiter_runner.timing.time_model gets in the benchmark: `arbiter eval`'s
    defaults on device as the runtime hands them out (arb_timing_defaults), then --quick's, then
    the overrides."""
    return {**runtime.timing_defaults_dict(device), **(QUICK if quick else {}), **overrides}
