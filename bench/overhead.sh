#!/usr/bin/env bash
# Recorder overhead benchmark (issues: sampler performance, #15 item 2): builds the
# release binary, then runs bench/overhead.py: the target's CPU time alone,
# under perf record without stacks (the floor), perf --call-graph dwarf and
# blame record (hybrid, and dwarf) in alternating rounds, for hot.c on a spare
# core at 1, 4 and 10 kHz and for the busy node (bench/busy_mpi.c with
# `mpirun -np $(nproc)`, the recorder competing with the ranks) at 1 and
# 4 kHz; then a 4-rank MPI run's recorder RSS.
#   bench/overhead.sh [--rounds N] [--case single|busy|all]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export LLVM_SYS_191_PREFIX=${LLVM_SYS_191_PREFIX:-$(llvm-config-19 --prefix)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cargo build --release -q --bins
python3 bench/overhead.py "$@"
