"""ctypes binding of libarbiter_runtime (include/arbiter/runtime/arbiter_runtime.h).

The C library holds everything the measured process must not be able to patch from Python: the
bundle format, hashing and the timing loop. Every call is checked; a failure raises RuntimeError
with the library's own message.
"""
import ctypes
import json
import os

ARB_MAX_NDIM = 8
ARB_E_CALLBACK = -5

DEVICE_CODES = {"cpu": 0, "cuda": 1}
STOP_NAMES = {0: "noise", 1: "max_time", 2: "max_samples"}

# Every member of a timing record, as the runtime writes it ("fallback" only where the stream hold was
# given up): include/arbiter/runtime/timing_record.hpp's timing_record_fields, held together with this
# list by tests/unit/runtime/timing_record_test.cpp.
TIMING_RECORD_FIELDS = ("device", "clock", "samples", "warmup", "median_ms", "p10_ms", "p90_ms", "mean_ms", "min_ms",
                        "max_ms", "rel_noise", "stop", "method", "fallback", "held_samples", "floor_ms", "empty_kernel_ms",
                        "host_median_ms", "host_samples", "throttled_samples", "all_throttled", "power_capped_samples",
                        "rest_ratio", "rest_s", "clock_monitor", "sm_clock_mhz", "max_sm_clock_mhz", "clock_check",
                        "times_ms", "host_ms", "throttled_ms", "sample_sm_mhz", "power_capped_idx", "dropped_idx")
OPTIONAL_RECORD_FIELDS = ("fallback",)

CALL_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int64)


class TimingConfig(ctypes.Structure):
    _fields_ = [
        ("device", ctypes.c_int32),
        ("warmup_calls", ctypes.c_int32),
        ("min_samples", ctypes.c_int64),
        ("max_samples", ctypes.c_int64),
        ("min_time_s", ctypes.c_double),
        ("max_time_s", ctypes.c_double),
        ("target_rel_noise", ctypes.c_double),
        ("stream", ctypes.c_uint64),
        ("l2_flush_bytes", ctypes.c_uint64),
        ("probe_group", ctypes.c_int64),
        ("after_call", CALL_FN),
        ("warmup_time_s", ctypes.c_double),
        ("rest_ratio", ctypes.c_double),
    ]


# The job file's "timing" keys: the fields of TimingConfig a campaign sets (src/pipeline/jobs.cpp
# writes them; tests/unit/pipeline/jobs_test.cpp holds the two lists together).
TIMING_KEYS = ("warmup_calls", "min_samples", "max_samples", "min_time_s", "max_time_s", "target_rel_noise",
               "warmup_time_s", "rest_ratio", "l2_flush_bytes")


class TimingResult(ctypes.Structure):
    _fields_ = [
        ("samples", ctypes.c_int64),
        ("median_ms", ctypes.c_double),
        ("p10_ms", ctypes.c_double),
        ("p90_ms", ctypes.c_double),
        ("mean_ms", ctypes.c_double),
        ("min_ms", ctypes.c_double),
        ("max_ms", ctypes.c_double),
        ("rel_noise", ctypes.c_double),
        ("stop", ctypes.c_int32),
    ]


class RuntimeFailure(RuntimeError):
    """A runtime call failed; code is the ARB_E_* value."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def _declare(lib):
    c = ctypes
    p = c.c_void_p
    signatures = {
        "arb_last_error": (c.c_char_p, []),
        "arb_writer_open": (c.c_int, [c.c_char_p, c.POINTER(p)]),
        "arb_writer_add": (c.c_int, [p, c.c_int32, c.c_int32, c.c_int32, c.POINTER(c.c_int64), p, c.c_uint64]),
        "arb_writer_close": (c.c_int, [p]),
        "arb_reader_open": (c.c_int, [c.c_char_p, c.POINTER(p)]),
        "arb_reader_count": (c.c_int64, [p]),
        "arb_reader_info": (c.c_int, [p, c.c_int64, c.POINTER(c.c_int32), c.POINTER(c.c_int32),
                                      c.POINTER(c.c_int32), c.POINTER(c.c_int64), c.POINTER(c.c_uint64)]),
        "arb_reader_copy": (c.c_int, [p, c.c_int64, p, c.c_uint64]),
        "arb_reader_offset": (c.c_int, [p, c.c_int64, c.POINTER(c.c_uint64)]),
        "arb_reader_close": (None, [p]),
        "arb_hash_bytes": (c.c_uint64, [p, c.c_uint64, c.c_uint64]),
        "arb_timing_defaults": (c.c_int, [c.c_int32, c.POINTER(TimingConfig)]),
        "arb_time": (c.c_int, [c.POINTER(TimingConfig), CALL_FN, p, c.c_char_p, c.POINTER(TimingResult)]),
        "arb_last_timing": (c.c_int64, [c.c_char_p, c.c_int64]),
        "arb_device_synchronize": (c.c_int, [c.c_int32]),
        "arb_probe_begin": (c.c_int, [c.c_char_p, c.c_int64, c.c_int64, c.c_uint64]),
        "arb_probe_end": (c.c_int, []),
    }
    for name, (restype, argtypes) in signatures.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


class Runtime:
    """The loaded library; methods mirror the C functions and raise RuntimeFailure."""

    def __init__(self, path):
        if not path:
            raise RuntimeError("no runtime library: the job has no runtime_lib and ARBITER_RUNTIME_LIB is unset")
        self.lib = ctypes.CDLL(os.fspath(path))
        _declare(self.lib)

    def check(self, rc, what):
        if rc < 0:
            message = (self.lib.arb_last_error() or b"").decode("utf-8", "replace")
            raise RuntimeFailure(rc, f"{what}: {message}")
        return rc

    def timing_defaults(self, device):
        """A campaign's default TimingConfig on device: the runtime's, the one set of defaults
        (include/arbiter/runtime/timing_options.hpp)."""
        config = TimingConfig()
        self.check(self.lib.arb_timing_defaults(DEVICE_CODES[device], ctypes.byref(config)), "arb_timing_defaults")
        return config

    def timing_defaults_dict(self, device):
        """timing_defaults as the job file's "timing" object (the keys TIMING_KEYS names)."""
        config = self.timing_defaults(device)
        return {key: getattr(config, key) for key in TIMING_KEYS}

    def last_timing(self):
        """The record the last arb_time made, parsed, from the runtime's memory (not its file)."""
        length = self.lib.arb_last_timing(None, 0)
        buffer = ctypes.create_string_buffer(max(length, 1))
        self.lib.arb_last_timing(buffer, length)
        return check_timing_record(json.loads(buffer.raw[:length])) if length else None

    def hash_bytes(self, address, nbytes, seed):
        return self.lib.arb_hash_bytes(address, nbytes, seed)

    def probe_window(self, label, group, index, stream):
        """A window of the CUPTI probe (docs/probe.md) around a block; a no-op without the probe."""
        return _ProbeWindow(self.lib, label, group, index, stream)

    def synchronize(self, device):
        self.check(self.lib.arb_device_synchronize(DEVICE_CODES[device]), "arb_device_synchronize")


class _ProbeWindow:
    def __init__(self, lib, label, group, index, stream):
        self.lib, self.args = lib, (label.encode(), group, index, stream)

    def __enter__(self):
        self.lib.arb_probe_begin(*self.args)
        return self

    def __exit__(self, *_exc):
        self.lib.arb_probe_end()
        return False


_loaded = {}


def load(path=None):
    """The runtime at path (default: $ARBITER_RUNTIME_LIB), loaded once per process."""
    path = path or os.environ.get("ARBITER_RUNTIME_LIB")
    if path not in _loaded:
        _loaded[path] = Runtime(path)
    return _loaded[path]


def check_timing_record(record):
    """The record, once its members are TIMING_RECORD_FIELDS; RuntimeError naming the difference (a
    runtime built from other sources than this runner)."""
    missing = [k for k in TIMING_RECORD_FIELDS if k not in record and k not in OPTIONAL_RECORD_FIELDS]
    unknown = sorted(set(record) - set(TIMING_RECORD_FIELDS))
    if missing or unknown:
        raise RuntimeError(f"arb_last_timing: the timing record lacks {missing} and has unknown members {unknown} "
                           "(include/arbiter/runtime/timing_record.hpp against TIMING_RECORD_FIELDS)")
    return record
