"""The median of readings of a stepping clock, as arbiter takes it (score::stepped_median in
src/score/metrics.cpp): CUPTI's timestamps come from the GPU's global timer, which steps 32 ns on
H100 and H200, so a 1.3 µs kernel reads 1248 or 1280 ns and a plain median can only be one of the
two. Each reading v stands for a time spread evenly over [v - step/2, v + step/2); the median is
interpolated inside the step it falls in (the median of grouped data)."""
import math
import statistics


# Fewer distinct durations may share a factor by chance (one kernel gives its own duration): the
# step is then unknown (src/pipeline/probe_evidence.cpp k_step_min_distinct_durations).
MIN_DISTINCT_DURATIONS = 16


def timer_step_ns(durations_ns):
    """The clock's step read from exact durations (the probe's integer nanoseconds): their greatest
    common divisor; 0 (unknown) where fewer than MIN_DISTINCT_DURATIONS distinct ones are positive."""
    distinct = {int(d) for d in durations_ns if d > 0}
    return math.gcd(*distinct) if len(distinct) >= MIN_DISTINCT_DURATIONS else 0


def converted_step_ns(durations_ns, tolerance_ns=1.5, largest=256, fewest=20):
    """The clock's step read from durations that passed through a clock conversion (torch.profiler's
    kineto maps CUPTI's timestamps to its own time base and writes microseconds: each duration
    lands within about 1 ns of a multiple of the step): the largest step up to `largest` ns with
    every positive duration within tolerance_ns of a multiple of it; 1 where none is, or where
    fewer than `fewest` durations make a common step likely by chance."""
    positive = [d for d in durations_ns if d > 0]
    if len(positive) < fewest:
        return 1
    for step in range(largest, 1, -1):
        if all(abs(d - round(d / step) * step) <= tolerance_ns for d in positive):
            return step
    return 1


def snapped(values_ns, step):
    """Each value moved to the nearest multiple of step (the conversion's rounding undone)."""
    return [round(v / step) * step for v in values_ns] if step > 1 else list(values_ns)


def stepped_median(readings, step):
    """The median of readings taken inside the clock's step; with a step of 0 or 1, a step some
    reading is not a multiple of, or readings of one value, the plain median. Raises on no
    readings, as statistics.median does."""
    readings = sorted(readings)
    if step <= 1 or any(r % step for r in readings) or readings[0] == readings[-1]:
        return statistics.median(readings)
    middle = readings[(len(readings) - 1) // 2]
    below = sum(1 for r in readings if r < middle)
    inside = sum(1 for r in readings if r == middle)
    if 2 * (below + inside) == len(readings):
        # an even count whose halves part exactly after this step: between it and the next reading,
        # as the plain median is (the same value where the next reading is one step on)
        return (middle + readings[below + inside]) / 2
    return middle - step / 2 + step * (len(readings) / 2 - below) / inside
