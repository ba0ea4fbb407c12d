"""The integration tests again, on an NVIDIA GPU (label gpu). Exits 77 — reported by ctest as
skipped — where no GPU is usable, and says why."""
import os
import subprocess
import sys

python = os.environ.get("ARBITER_PYTHON", sys.executable)
probe = subprocess.run([python, "-c", "import torch; print(torch.cuda.is_available())"], capture_output=True, text=True)
if probe.stdout.strip() != "True":
    seen = probe.stdout.strip() or probe.stderr.strip()[-200:]
    print(f"SKIPPED: no usable GPU for {python} (torch.cuda.is_available() = {seen})")
    sys.exit(77)
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
env = dict(os.environ, ARBITER_TEST_DEVICE="cuda")
# $ARBITER_GPU_TESTS: test files or node ids (relative to the repository, space-separated) to run
# instead of the whole suite, so the suite can be run in parts that each fit a time limit.
selected = os.environ.get("ARBITER_GPU_TESTS", "").split() or [os.path.join("tests", "integration")]
sys.exit(subprocess.call([python, "-m", "pytest", "-v", "-p", "no:cacheprovider",
                          *[os.path.join(root, test) for test in selected], *sys.argv[1:]], env=env))
