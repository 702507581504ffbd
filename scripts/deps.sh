#!/usr/bin/env bash
# Installs what blame needs from Debian when it is missing; does nothing when
# everything is present. Safe to run again (idempotent). Needs root or sudo
# only when something has to be installed.
set -euo pipefail

packages=(
  clang-19 llvm-19-dev libpolly-19-dev libzstd-dev   # static pass: clang-19 bitcode, llvm-sys 191
  libomp-19-dev                                       # OpenMP programs (clang-19 -fopenmp)
  openmpi-bin libopenmpi-dev                          # MPI programs and mpirun
  linux-perf                                          # perf, the overhead baseline and perf.data import
  valgrind                                            # data-centric evaluation (lackey traces), DHAT: memory blame totals
  heaptrack                                           # bench/alloc_overhead.sh: tracing overhead baseline
  golang-go                                           # go tool pprof: validates our pprof export
  chromium chromium-driver                            # HTML report browser test
  pkg-config make time                               # time: /usr/bin/time -v in bench/static_analysis.sh
  libc6-dbg                                           # names libc's unexported frames (__libc_start_call_main)
  libopenblas-dev liblapacke-dev                      # an LU through OpenBLAS (tests/programs/repros/cutblas)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "deps: all present"
else
  echo "deps: installing ${missing[*]}"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Sampling needs perf_event_open for the recording user. As root nothing is
# needed; otherwise say what to do (we never change kernel settings silently).
if [[ $(id -u) -ne 0 ]]; then
  level=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo "?")
  if [[ $level != "?" && $level -gt 1 ]]; then
    echo "deps: note: kernel.perf_event_paranoid=$level; as non-root, blame record falls back to ptrace." >&2
    echo "      'sudo sysctl kernel.perf_event_paranoid=1' enables perf_event sampling." >&2
  fi
fi
command -v cargo >/dev/null || { echo "deps: cargo not found: install Rust (rustup) first" >&2; exit 1; }
