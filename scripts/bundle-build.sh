#!/usr/bin/env bash
# A build folder that runs on another Linux machine with the CUDA toolkit but without this one's
# Debian libraries (a GPU host): bin/arbiter, lib/libarbiter_runtime.so, lib/libarbiter_probe.so,
# bin/bwrap where this machine has bubblewrap, and
# every library the binary loads except the C and C++ runtimes, debug info stripped, each finding
# the others through its own folder; the probe keeps its CUDA folders first (CUPTI, the driver's
# libraries). The commit it was built from goes in BUILT_FROM. Use it as ARBITER_BUILD
# (scripts/gpu-checks.sh).
# Usage: scripts/bundle-build.sh [BUILD] [DEST]   (defaults: build/dev, build/gpu)
# shellcheck disable=SC2016 # '$ORIGIN' is the loader's, written literally
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build/dev}
DEST=${2:-build/gpu}
for tool in patchelf strip ldd; do
  command -v "$tool" >/dev/null || { echo "bundle-build: $tool is missing (apt-get install patchelf binutils)" >&2; exit 2; }
done
for file in bin/arbiter lib/libarbiter_runtime.so lib/libarbiter_probe.so; do
  [ -f "$BUILD/$file" ] || { echo "bundle-build: $BUILD/$file is missing: build first (cmake --build --preset dev)" >&2; exit 2; }
done
rm -rf "$DEST"
mkdir -p "$DEST/bin" "$DEST/lib"
cp -L "$BUILD/bin/arbiter" "$DEST/bin/"
cp -L "$BUILD/lib/libarbiter_runtime.so" "$BUILD/lib/libarbiter_probe.so" "$DEST/lib/"
# The C and C++ runtimes come from the host (a copy would have to match its loader).
SYSTEM='^(libc|libm|libdl|libpthread|librt|libutil|libresolv|libstdc\+\+|libgcc_s|ld-linux-x86-64|linux-vdso)\.so'
ldd "$BUILD/bin/arbiter" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r name path; do
  [[ $name =~ $SYSTEM ]] || cp -L "$path" "$DEST/lib/$name"
done
# Debian's bubblewrap, for a GPU host without it (the allow-list engine; scripts/gpu-checks.sh
# names it in ARBITER_BWRAP where the host has no bwrap of its own), with the libraries it loads.
if [ -x /usr/bin/bwrap ]; then
  cp -L /usr/bin/bwrap "$DEST/bin/bwrap"
  ldd /usr/bin/bwrap | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r name path; do
    [[ $name =~ $SYSTEM ]] || cp -L "$path" "$DEST/lib/$name"
  done
  patchelf --set-rpath '$ORIGIN/../lib' "$DEST/bin/bwrap"
fi
strip --strip-debug "$DEST/bin/arbiter" "$DEST"/lib/*
probe_rpath=$(patchelf --print-rpath "$BUILD/lib/libarbiter_probe.so")
for lib in "$DEST"/lib/*; do
  patchelf --set-rpath '$ORIGIN' "$lib"
done
case $probe_rpath in
*'$ORIGIN'*) ;;
*) probe_rpath="${probe_rpath:+$probe_rpath:}\$ORIGIN" ;;
esac
patchelf --set-rpath "$probe_rpath" "$DEST/lib/libarbiter_probe.so"
patchelf --set-rpath '$ORIGIN/../lib' "$DEST/bin/arbiter"
git rev-parse --short HEAD >"$DEST/BUILT_FROM"
echo "bundle-build: $DEST ($(du -sh "$DEST" | cut -f1), built from $(cat "$DEST/BUILT_FROM"))"
