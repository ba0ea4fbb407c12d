#!/usr/bin/env bash
# The checks that CI cannot run, on a machine with an NVIDIA GPU, each under its own time limit,
# each step's output in OUT/<step>.log (OUT defaults to ./gpu-checks):
#   corpus     the guard corpus cases whose evidence needs the GPU (probe rules: B1 library kernels, …)
#   redteam    the red-team corpus on cuda (REDTEAM_CASES, globs under tests/corpus/redteam, default
#              every case), then the outside clock's account of each batch (OUT/redteam-outside.md)
#   prestart   wall per evaluation with and without candidates started ahead (docs/measurement.md)
#   fidelity   timing fidelity (FIDELITY_WORKLOADS, default all four), FIDELITY_PROCS (default 5) fresh
#              processes each;
#              FIDELITY_ARGS adds run.py options, split on spaces (for example "--hold-cycles 40000")
#   history    the tiny kernel's time under the profiler after each process history of
#              bench/timing_fidelity/histories.txt, HISTORY_PROCS (default 2) fresh processes each
#   gpu        the whole integration suite on cuda (ctest's gpu label); GPU_PYTEST_ARGS adds pytest
#              options, split on spaces (for example "-n 4"); each test's result is logged as it ends,
#              each failure's traceback in OUT/gpu-failures.log as it happens; GPU_TESTS runs only
#              the named test files or node ids (space-separated, relative to the repository)
# Usage: scripts/gpu-checks.sh [OUT] [step ...]   (default steps: corpus prestart fidelity)
# Needs a build: build/dev (cmake --preset dev && cmake --build --preset dev), or the folder named by
# ARBITER_BUILD holding bin/arbiter, lib/libarbiter_runtime.so and lib/libarbiter_probe.so
# (scripts/bundle-build.sh makes such a folder, with its libraries, for a GPU host without them).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${1:-gpu-checks}
shift || true
STEPS=("$@")
[ ${#STEPS[@]} -gt 0 ] || STEPS=(corpus prestart fidelity)
# The Python with torch: the integration tests' own default (/usr/bin/python3) may lack it there.
PYTHON=${ARBITER_PYTHON:-$(command -v python3)}
export ARBITER_PYTHON=$PYTHON
BUILD=${ARBITER_BUILD:-$PWD/build/dev}
BIN=$BUILD/bin/arbiter
LIB=$BUILD/lib/libarbiter_runtime.so
export ARBITER_PYTHONPATH=${ARBITER_PYTHONPATH:-$PWD/python}
SCRATCH=${ARBITER_SCRATCH:-/dev/shm/arbiter-gpu-checks}
mkdir -p "$OUT" "$SCRATCH"
OUT=$(cd "$OUT" && pwd)
# A host without bubblewrap uses the bundle's (scripts/bundle-build.sh): the allow-list engine.
if [ -z "${ARBITER_BWRAP:-}" ] && ! command -v bwrap >/dev/null && [ -x "$BUILD/bin/bwrap" ]; then
  export ARBITER_BWRAP=$BUILD/bin/bwrap
fi
[ -x "$BIN" ] || { echo "gpu-checks: $BIN is missing: build the dev preset first or set ARBITER_BUILD" >&2; exit 2; }

# The corpus cases that have not yet been judged on a GPU since their rule or case last changed.
CORPUS_CASES=${CORPUS_CASES:-'hacks/B1/*,hacks/H3/writes_result_channel,hacks/T3/builtin_type_hides_subclass,hacks/T5/precomputes_from_exchange,hacks/S5/memo_on_tensor_objects,hacks/T4/time_patch,legit/*'}

step() { # name, seconds, command...
  local name=$1 limit=$2
  shift 2
  local started=$SECONDS
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  echo "gpu-checks: $name exited $rc after $((SECONDS - started)) s (log: $OUT/$name.log)"
  tail -n 25 "$OUT/$name.log"
}

for name in "${STEPS[@]}"; do
  case $name in
  corpus)
    step corpus "${CORPUS_LIMIT:-300}" env ARBITER_BIN="$BIN" ARBITER_TEST_DEVICE=cuda ARBITER_CORPUS_CASES="$CORPUS_CASES" \
      "$PYTHON" -m pytest -v -p no:cacheprovider --basetemp="$SCRATCH/corpus" tests/integration/test_guard_corpus.py ;;
  redteam)
    step redteam "${REDTEAM_LIMIT:-540}" env ARBITER_BIN="$BIN" ARBITER_TEST_DEVICE=cuda ARBITER_CORPUS_CASES="${REDTEAM_CASES:-}" \
      "$PYTHON" -m pytest -q -rs -s -p no:cacheprovider --basetemp="$SCRATCH/redteam" tests/integration/test_redteam_corpus.py
    "$PYTHON" bench/outside_clock/report.py "$SCRATCH/redteam/redteam0/results.db" >"$OUT/redteam-outside.md" 2>&1 ;;
  prestart)
    step prestart "${PRESTART_LIMIT:-240}" "$PYTHON" bench/throughput/prestart.py --arbiter "$BIN" \
      --suite tests/corpus/kernelbench/level1 --solutions tests/corpus/kernelbench/solutions \
      --device cuda --copies 4 --prestart 0,2 --work "$SCRATCH/prestart" ;;
  fidelity)
    # shellcheck disable=SC2086 # FIDELITY_ARGS is a list of options
    step fidelity "${FIDELITY_LIMIT:-540}" "$PYTHON" bench/timing_fidelity/run.py --runtime-lib "$LIB" \
      --workloads "${FIDELITY_WORKLOADS:-tiny,softmax,gemm,multi}" --procs "${FIDELITY_PROCS:-5}" --out "$OUT/fidelity" ${FIDELITY_ARGS:-} ;;
  history)
    step history "${HISTORY_LIMIT:-300}" "$PYTHON" bench/timing_fidelity/histories.py --runtime-lib "$LIB" \
      --workload "${HISTORY_WORKLOAD:-tiny}" --procs "${HISTORY_PROCS:-2}" --out "$OUT/history" ;;
  gpu)
    # shellcheck disable=SC2086 # GPU_PYTEST_ARGS is a list of options
    step gpu "${GPU_LIMIT:-3000}" env ARBITER_BIN="$BIN" ARBITER_PYTHON="$PYTHON" ARBITER_FAILURE_LOG="$OUT/gpu-failures.log" \
      ARBITER_GPU_TESTS="${GPU_TESTS:-}" \
      "$PYTHON" tests/gpu/run_gpu_tests.py \
      -rf --tb=short --basetemp="$SCRATCH/gpu" ${GPU_PYTEST_ARGS:-} ;;
  *)
    echo "gpu-checks: unknown step '$name' (expected corpus, redteam, prestart, fidelity, history or gpu)" >&2
    exit 2 ;;
  esac
done
