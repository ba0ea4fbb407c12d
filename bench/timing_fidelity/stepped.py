"""The median of readings of a stepping clock, as arbiter takes it (score::stepped_median in
src/score/metrics.cpp): CUPTI's timestamps come from the GPU's global timer, which steps 32 ns on
H100 and H200, so a 1.3 µs kernel reads 1248 or 1280 ns and a plain median can only be one of the
two. Each reading v stands for a time spread evenly over [v - step/2, v + step/2); the median is
interpolated inside the step it falls in (the median of grouped data)."""
import math
import statistics


# Fewer distinct durations may share a factor by chance (one kernel gives its own duration): the
# step is then unknown (src/judge/probe_evidence.cpp k_step_min_distinct_durations).
MIN_DISTINCT_DURATIONS = 16
# How far a reading may sit from a multiple of the step and still be read as it (CUPTI maps the
# GPU's timer onto the host's clock: score::k_timer_step_tolerance_ns).
TOLERANCE_NS = 1
# The steps looked for within a tolerance: below the smallest, every duration is near some multiple.
SMALLEST_STEP_NS, LARGEST_STEP_NS = 8, 256
# Only durations this short read the probe's step: a long one drifts off it in CUPTI's mapping onto
# the host's clock (src/judge/probe_evidence.cpp k_step_longest_duration_ns).
LONGEST_DURATION_NS = 16_384


def _off_step(value, step):
    return abs(value - round(value / step) * step)


def _step_within(durations, tolerance_ns):
    """The largest step of SMALLEST_STEP_NS..LARGEST_STEP_NS every duration keeps to within
    tolerance_ns; None where none does."""
    return next((step for step in range(LARGEST_STEP_NS, SMALLEST_STEP_NS - 1, -1)
                 if all(_off_step(d, step) <= tolerance_ns for d in durations)), None)


def timer_step_ns(durations_ns):
    """The clock's step read from the probe's integer nanosecond durations up to LONGEST_DURATION_NS:
    their greatest common divisor, or where that is 1, the largest step every duration keeps to
    within TOLERANCE_NS (else 1); 0 (unknown) where fewer than MIN_DISTINCT_DURATIONS distinct ones
    are positive."""
    distinct = {int(d) for d in durations_ns if 0 < d <= LONGEST_DURATION_NS}
    if len(distinct) < MIN_DISTINCT_DURATIONS:
        return 0
    common = math.gcd(*distinct)
    return common if common > 1 else (_step_within(distinct, TOLERANCE_NS) or 1)


def converted_step_ns(durations_ns, tolerance_ns=1.5, fewest=20):
    """The clock's step read from durations that passed through a clock conversion (torch.profiler's
    kineto maps CUPTI's timestamps to its own time base and writes microseconds: each duration
    lands within about 1 ns of a multiple of the step): the largest step up to LARGEST_STEP_NS ns
    with every positive duration within tolerance_ns of a multiple of it; 1 where none is, or where
    fewer than `fewest` durations make a common step likely by chance."""
    positive = [d for d in durations_ns if d > 0]
    return (_step_within(positive, tolerance_ns) or 1) if len(positive) >= fewest else 1


def snapped(values_ns, step):
    """Each value moved to the nearest multiple of step (the conversion's rounding undone)."""
    return [round(v / step) * step for v in values_ns] if step > 1 else list(values_ns)


def stepped_median(readings, step):
    """The median of readings taken inside the clock's step, each reading within TOLERANCE_NS of a
    multiple of it read as that multiple; with a step of 0 or 1, a step some reading does not keep
    to, or readings of one value, the plain median. Raises on no readings, as statistics.median
    does."""
    readings = sorted(readings)
    if step <= 1 or any(_off_step(r, step) > TOLERANCE_NS for r in readings):
        return statistics.median(readings)
    if round(readings[0] / step) == round(readings[-1] / step):
        return statistics.median(readings)
    readings = snapped(readings, step)
    middle = readings[(len(readings) - 1) // 2]
    below = sum(1 for r in readings if r < middle)
    inside = sum(1 for r in readings if r == middle)
    if 2 * (below + inside) == len(readings):
        # an even count whose halves part exactly after this step: between it and the next reading,
        # as the plain median is (the same value where the next reading is one step on)
        return (middle + readings[below + inside]) / 2
    return middle - step / 2 + step * (len(readings) / 2 - below) / inside
