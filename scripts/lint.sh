#!/usr/bin/env bash
# The tree's style, as the `lint` test checks it: every tracked C, C++ and CUDA file as .clang-format
# formats it (Debian's clang-format), and the Python of the runner, the benchmarks, the tests and the
# scripts as .flake8 says (Debian's flake8). Solutions, suites and tests/corpus are data, not checked.
# Exits 77 (skipped) where a tool is missing; scripts/install-deps.sh installs both.
# Usage: scripts/lint.sh            check
#        scripts/lint.sh --fix      reformat the C++ in place (flake8 findings stay for a person)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
for tool in clang-format flake8; do
  command -v "$tool" >/dev/null || { echo "lint: SKIPPED: $tool is not installed (apt-get install $tool)"; exit 77; }
done
mapfile -t sources < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh' | grep -v '^tests/corpus/')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${sources[@]}"
  exit 0
fi
status=0
clang-format --dry-run --Werror "${sources[@]}" || status=1
flake8 python bench tests/python tests/integration tests/gpu scripts || status=1
[ $status -eq 0 ] && echo "lint: ${#sources[@]} C++ files formatted, Python clean"
exit $status
