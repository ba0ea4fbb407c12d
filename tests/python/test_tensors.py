"""tensors.reserve_heap: after it, a call's output on cpu reuses resident pages (no page faults
inside the call) under the glibc settings the orchestrator gives cpu runners (jobs.cpp
cpu_environment)."""
import os
import subprocess
import sys

from conftest import PYTHON_DIR

CPU_ENV = {"MALLOC_PERTURB_": "1", "OMP_NUM_THREADS": "1", "MALLOC_MMAP_THRESHOLD_": str(32 << 20),
           "MALLOC_TRIM_THRESHOLD_": str(1 << 40)}

# Allocates and fills 4 MiB outputs beside live inputs, as a call would, counting the minor page
# faults each costs; prints the most any one took.
FAULTS_PER_CALL = """
import resource, sys, torch
from arbiter_runner import tensors
tensors.reserve_heap("cpu", int(sys.argv[1]))
worst = 0
for _ in range(6):
    inputs = torch.randn(1 << 20)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    out = torch.relu(inputs)
    worst = max(worst, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    del out
print(worst)
"""


def _worst_faults(reserve):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR, **CPU_ENV)
    proc = subprocess.run([sys.executable, "-c", FAULTS_PER_CALL, str(reserve)], env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    return int(proc.stdout.strip())


def test_a_reserved_heap_serves_a_calls_output_without_page_faults():
    assert _worst_faults(64 << 20) < 64  # a 4 MiB output is 1024 pages; a few faults are torch's own


def test_without_the_reservation_an_output_is_faulted_in_inside_the_call():
    assert _worst_faults(0) >= 1024  # what the reservation saves: the first output's every page


def test_reserve_heap_leaves_cuda_alone():
    from arbiter_runner import tensors
    tensors.reserve_heap("cuda", 1 << 40)  # would fail on any host if it allocated
