#!/usr/bin/env bash
# Runs the libFuzzer targets of the fuzz preset (docs/fuzzing.md), each for SECONDS, as many at once
# as the machine has cores. Usage: scripts/fuzz.sh [SECONDS] [TARGET...] (default 20 s, every target
# in fuzz/ but those fuzz/known_open.txt lists). Build first: cmake --preset fuzz && cmake --build
# --preset fuzz. Each target grows its corpus in $FUZZ_OUT/corpus/<target> (seeded from
# fuzz/corpus/<target>) and leaves a crashing input in $FUZZ_OUT/crashes/; one line per target, then
# a summary; exits non-zero when any target crashed. ARBITER_FUZZ_BUILD names another build folder,
# FUZZ_OUT another output folder (default <build>/fuzz-out), FUZZ_JOBS the targets run at once.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
shift || true
build="${ARBITER_FUZZ_BUILD:-build/fuzz}"
out="${FUZZ_OUT:-$build/fuzz-out}"
jobs="${FUZZ_JOBS:-$(nproc)}"

open_targets=$(awk '!/^#/ && NF {print $1}' fuzz/known_open.txt)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for src in fuzz/*.cpp; do
    name=$(basename "$src" .cpp)
    if grep -qx "$name" <<<"$open_targets"; then echo "fuzz $name: skipped (known open, fuzz/known_open.txt)"; continue; fi
    targets+=("$name")
  done
fi

mkdir -p "$out/crashes" "$out/logs"
run_one() { # one target: its line, and its status in $out/logs/<target>.status
  local name="$1" bin="$build/bin/fuzz_$1" log="$out/logs/$1.log"
  mkdir -p "$out/corpus/$name"
  local rc=0
  "$bin" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 -artifact_prefix="$out/crashes/$name-" \
    "$out/corpus/$name" "fuzz/corpus/$name" >"$log" 2>&1 || rc=$?
  local runs speed crash
  runs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
  speed=$(awk '/stat::average_exec_per_sec/ {print $2}' "$log")
  crash=$(sed -n 's/.*Test unit written to \(.*\)/\1/p' "$log" | head -1)
  if [ "$rc" -eq 0 ]; then
    echo "fuzz $name: ${runs:-?} runs, ${speed:-?}/s, no crash"
  else
    echo "fuzz $name: CRASH after ${runs:-?} runs: ${crash:-see $log}"
    grep -m3 -E 'ERROR|runtime error|what\(\)' "$log" | sed 's/^/  /' || true
  fi
  echo "$rc" >"$out/logs/$name.status"
}
export -f run_one
export seconds build out
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {}

crashed=0
for name in "${targets[@]}"; do [ "$(cat "$out/logs/$name.status")" = 0 ] || crashed=$((crashed + 1)); done
echo "fuzz: ${#targets[@]} targets, ${seconds} s each, $crashed crashed (logs and inputs in $out)"
[ "$crashed" -eq 0 ]
