#!/usr/bin/env bash
# Build overhead of `blame cc` (issue 15, item 1): builds the release
# binary, installs what the builds need (the reference BLAS for hpcc), then
# runs bench/build_overhead.py, which builds hpcc, lua and the corpus with
# make -j2 plainly and through blame cc in alternating rounds.
#   bench/build_overhead.sh [--rounds N] [--projects hpcc,lua,corpus]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export LLVM_SYS_191_PREFIX=${LLVM_SYS_191_PREFIX:-$(llvm-config-19 --prefix)}
if ! [ -e /usr/lib/x86_64-linux-gnu/libblas.so ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q libblas-dev >/dev/null
fi
cargo build --release -q --bins
python3 bench/build_overhead.py "$@"
