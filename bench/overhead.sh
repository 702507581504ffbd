#!/usr/bin/env bash
# Recorder overhead benchmark (issue: sampler performance): builds the
# release binary, then runs bench/overhead.py, which times hot.c alone,
# under perf record without stacks (the floor), perf --call-graph dwarf and
# blame record at 1 kHz and 4 kHz in one go, and a 4-rank MPI run's RSS.
#   bench/overhead.sh [--runs N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export LLVM_SYS_191_PREFIX=${LLVM_SYS_191_PREFIX:-$(llvm-config-19 --prefix)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cargo build --release -q --bins
python3 bench/overhead.py "$@"
