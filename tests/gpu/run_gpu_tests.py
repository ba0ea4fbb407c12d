"""The integration tests again, on an NVIDIA GPU (label gpu). Exits 77 — reported by ctest as
skipped — where no GPU is usable, and says why."""
import os
import subprocess
import sys

python = os.environ.get("ARBITER_PYTHON", sys.executable)
probe = subprocess.run([python, "-c", "import torch; print(torch.cuda.is_available())"], capture_output=True, text=True)
if probe.stdout.strip() != "True":
    print(f"SKIPPED: no usable GPU for {python} (torch.cuda.is_available() = {probe.stdout.strip() or probe.stderr.strip()[-200:]})")
    sys.exit(77)
here = os.path.dirname(os.path.abspath(__file__))
env = dict(os.environ, ARBITER_TEST_DEVICE="cuda")
sys.exit(subprocess.call([python, "-m", "pytest", "-v", "-p", "no:cacheprovider",
                          os.path.join(here, "..", "integration"), *sys.argv[1:]], env=env))
