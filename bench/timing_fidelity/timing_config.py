"""The timing settings arbiter's path runs with in the benchmark: `arbiter eval`'s defaults for the
device, --quick's short timing, then each --timing KEY=VALUE override (for comparing settings in
one run; results.json records them)."""

# `arbiter eval`'s timing defaults on cuda (include/arbiter/pipeline/options.hpp, timing_options, as
# src/pipeline/jobs.cpp passes them: the warm-up by time, the longer sampling time and the rest
# after each paced call on cuda only).
ARBITER_TIMING = {"warmup_calls": 3, "warmup_time_s": 0.3, "min_samples": 10, "max_samples": 1000, "min_time_s": 0.5,
                  "max_time_s": 2.0, "target_rel_noise": 0.01, "l2_flush_bytes": 0, "rest_ratio": 0.5}
CPU_TIMING = {**ARBITER_TIMING, "warmup_time_s": 0.0, "min_time_s": 0.1, "rest_ratio": 0.0}
# The runtime's own kernel that holds the harness stream while the host queues a sample's call
# (src/runtime/stream_hold.cpp): the probe's evidence and the profiler's traces name it.
HOLD_KERNEL = "arbiter_hold"
QUICK = {"warmup_time_s": 0.0, "min_time_s": 0.0, "max_time_s": 0.3}  # --quick: short timing on either device


def parse_overrides(items):
    """{key: number} from KEY=VALUE strings; raises ValueError naming the item that is not one of
    ARBITER_TIMING's keys with a number."""
    overrides = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or key not in ARBITER_TIMING:
            raise ValueError(f"--timing {item!r}: expected KEY=VALUE with KEY one of {', '.join(ARBITER_TIMING)}")
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"--timing {item!r}: {value!r} is not a number") from None
        overrides[key] = int(number) if isinstance(ARBITER_TIMING[key], int) else number
    return overrides


def arbiter_config(device, quick, overrides):
    """The timing dict arbiter_runner.timing.time_model gets in the benchmark."""
    return {**(ARBITER_TIMING if device == "cuda" else CPU_TIMING), **(QUICK if quick else {}), **overrides}
