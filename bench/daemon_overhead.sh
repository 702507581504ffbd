#!/usr/bin/env bash
# blame daemon cost (issue 19): a node made fully busy by an MPI program
# (bench/busy_mpi.c, `mpirun -np $(nproc)`), run alone and under the daemon
# at 49 Hz and 199 Hz in alternating rounds: the program's slowdown and the
# daemon's CPU share; then the daemon's memory while 500 processes run.
#   bench/daemon_overhead.sh [--rounds N] [--iterations N] [--procs N]
# Needs root (the daemon samples every CPU).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export LLVM_SYS_191_PREFIX=${LLVM_SYS_191_PREFIX:-$(llvm-config-19 --prefix)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cargo build --release -q --bins
python3 bench/daemon/overhead.py "$@"
