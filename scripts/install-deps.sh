#!/usr/bin/env bash
# Installs what arbiter needs to build, test and run on CPU, from Debian's packages only.
# Run as root (or through sudo). GPU machines bring their own CUDA, torch and Triton. libtorch-dev
# and pybind11-dev hold the headers torch.utils.cpp_extension builds against (C++ solutions on the CPU).
# clang and libclang-rt-14-dev (libFuzzer, the sanitizers' runtimes) build the fuzz preset (docs/fuzzing.md).
# clang-format and flake8 check the style (scripts/lint.sh, the `lint` test).
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  cmake ninja-build g++ pkg-config libseccomp-dev bubblewrap \
  libsqlite3-dev nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libfmt-dev libxxhash-dev libssl-dev libcurl4-openssl-dev libcpp-httplib-dev \
  libgtest-dev googletest \
  clang libclang-rt-14-dev clang-format flake8 \
  python3 python3-torch libtorch-dev pybind11-dev python3-numpy python3-pytest \
  chromium chromium-driver python3-selenium >/dev/null
echo "install-deps: done"
