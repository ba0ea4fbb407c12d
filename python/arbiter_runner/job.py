"""The job file (docs/protocol.md, "Job file"): per mode, the keys the orchestrator writes. Each list
is held together with its C++ writer by a unit test (tests/unit/pipeline/jobs_test.cpp for the
reference, candidate, build and calibrate jobs, tests/unit/suitecheck/suitecheck_test.cpp for the
check job), and read_job refuses a key outside its mode's list by name: a field renamed on one side
fails at once instead of reading as missing."""
import json

REFERENCE_JOB = ("mode", "device", "runtime_lib", "weights_seed", "num_seeds", "shapes", "guard", "timing",
                 "problem_file", "seeds", "stress_scales", "float64_check", "exchange_dir", "sealed_dir", "output_dir",
                 "timing_dir", "events_file", "outside")
CANDIDATE_JOB = ("mode", "device", "runtime_lib", "weights_seed", "num_seeds", "shapes", "guard", "timing",
                 "solution_file", "exchange_dir", "sealed_dir", "output_dir", "timing_dir", "events_file", "outside")
BUILD_JOB = ("mode", "device", "runtime_lib", "solution_file", "events_file")
CHECK_JOB = ("mode", "problem_file", "device", "shapes", "tolerance", "seeds", "weights_seed", "memory_gb", "repeats",
             "baselines", "events_file", "runtime_lib")
CALIBRATE_JOB = ("mode", "device", "runtime_lib", "events_file", "timing_dir", "timing")
# Keys the orchestrator never writes, with which a test makes the work smaller: every case "large"
# (tensors.is_large_case), the calibration's copy size, GEMM size and dtypes.
SMALLER_WORK_KEYS = ("large_case_bytes", "copy_bytes", "gemm_n", "dtypes")

JOB_KEYS = {"reference": REFERENCE_JOB, "candidate": CANDIDATE_JOB, "build": BUILD_JOB, "check": CHECK_JOB,
            "calibrate": CALIBRATE_JOB}


def read_job(job_path, mode):
    """The job at job_path for mode; ValueError naming the file and the key that does not belong."""
    with open(job_path, encoding="utf-8") as file:
        job = json.load(file)
    if not isinstance(job, dict):
        raise ValueError(f"{job_path}: a job is a JSON object, not {type(job).__name__}")
    if job.get("mode", mode) != mode:
        raise ValueError(f"{job_path}: job mode {job.get('mode')!r} but runner mode {mode!r}")
    unknown = sorted(set(job) - set(JOB_KEYS[mode]) - set(SMALLER_WORK_KEYS))
    if unknown:
        raise ValueError(f"{job_path}: unknown key(s) {', '.join(map(repr, unknown))} in a {mode} job "
                         f"(a {mode} job has {', '.join(JOB_KEYS[mode])})")
    return job
