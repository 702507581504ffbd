#!/usr/bin/env bash
# Data-centric attribution on the realistic corpus (tests/programs/corpus,
# the programs of tests/corpus.rs), the way run.sh does it for the kernels:
# each program is built as a user builds it (`blame cc` in front of every
# compile, -g -O2, the test's flags; each unit analyzed as it is compiled,
# `BLAME_CC_SYNC=1`), run at a small size under valgrind's
# lackey (every data access), an L1 simulation picks the misses, every 7th
# read miss in the program's own code is a sample, skid is injected, and
# the approximate methods are correlated with direct attribution by data
# address (`datacentric_eval`, one table per skid, the same columns as
# run.sh). These are real code shapes (classes, accessors, void* handles,
# OpenMP, MPI), not kernels written for the method.
#
#   bench/datacentric/corpus.sh [MEAN:SPREAD ...]    (default 3:2)
#
# PROGRAMS="..." chooses the programs (default: all of them); TIMEOUT
# bounds each run under lackey (seconds, default 900);
# EXPLAIN=PREFIX / JSON=PREFIX as in run.sh.
#
# Built with -gdwarf-4: valgrind 3.19 cannot read clang 19's DWARF 5 of
# programs of several units.
#
# How each program runs (the small sizes keep a lackey trace to a few
# hundred MB): MPI programs run as one rank (an MPI singleton, no mpirun),
# but mpiwait, which needs two (both ranks under lackey, the larger trace
# evaluated);
# jacobi's OpenMP regions run on one thread; denselu's kernel library, which
# the corpus test builds without the launcher as a shared library, is
# linked into the program here (samples are taken in the program's own
# code only, and its hot loop is in that library).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
skids=("${@:-3:2}")
cd "$root"
export LLVM_SYS_191_PREFIX=${LLVM_SYS_191_PREFIX:-$(llvm-config-19 --prefix)}
cargo build --release -q --bins
cargo build --release -q -p blame-post --example datacentric_eval
blame="$root/target/release/blame"
eval_bin="$root/target/release/examples/datacentric_eval"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clang-19 -shared -fPIC -O2 -o "$work/libblame_alloc.so" alloc-tracer/blame_alloc.c -ldl
corpus="$root/tests/programs/corpus"
explain=${EXPLAIN:-}
json=${JSON:-}
# The MPI programs (halo mdlink amrblocks cgbench hydrocxx mpiwait) are
# not in the default list: MPI_Init alone, under lackey, writes a trace of
# several GB and runs for more than ten minutes (halo: 2.4 GB after six
# minutes, still in MPI_Init), so none finished; PROGRAMS can name them.
programs=${PROGRAMS-mgsolver denselu hydro cgsolve femgmres particles kspsolve ftnstyle lulesh3 jacobi cgfiles fvmesh mgopaque}

# Per program: compiler, sources, extra compile flags, arguments (small size).
spec() {
  local p=$1 d="$corpus/$1"
  flags="-O2" env=() launch=()
  case $p in
    mgsolver) cc=clang-19 srcs="$d/mg.c $d/main.c" args="6 1" ;;
    denselu) cc=clang-19 srcs="$d/blk.c $d/lu.c" args="160 32 1" ;;
    hydro) cc=clang++-19 srcs="$d/domain.cc $d/hydro.cc" args="4000 6" ;;
    cgsolve) cc=clang++-19 srcs="$d/cgsolve.cpp" args="14 8" ;;
    femgmres) cc=clang-19 srcs="$d/femgmres.c" args="$d/square.mesh 10 1" ;;
    halo) cc=mpicc srcs="$d/halo.c" args="96 6" ;;
    particles) cc=clang++-19 srcs="$d/particles.cpp" args="600 4" ;;
    kspsolve) cc=clang-19 srcs="$d/ksp.c" args="24 4" ;;
    ftnstyle) cc=clang-19 srcs="$d/common.c $d/sweep.c $d/main.c" args="2" ;;
    lulesh3) cc=clang++-19 srcs="$d/lulesh3.cc" args="8 4" flags="-O3" ;;
    jacobi)
      cc=clang-19 srcs="$d/util.c $d/kernels.c $d/jacobi.c" args="64 12" flags="-O2 -fopenmp"
      env=(OMP_NUM_THREADS=1)
      ;;
    cgfiles) cc=clang-19 srcs="$d/main.c $d/kernels.c $d/setup.c" args="40 12" ;;
    fvmesh) cc=clang++-19 srcs="$d/mesh.cc $d/fvm.cc" args="40 4" ;;
    mdlink) cc=mpicc srcs="$d/*.c" args="5 3" ;;
    amrblocks) cc=mpicc srcs="$d/*.c" args="8 2 2" ;;
    cgbench) cc=mpicxx srcs="$d/*.cpp" args="16 1 4" ;;
    hydrocxx) cc=mpicxx srcs="$d/*.cc" args="24 4" ;;
    mgopaque) cc=clang-19 srcs="$d/*.c" args="5 1" ;;
    mpiwait) cc=mpicc srcs="$d/*.c" args="48 3" launch=(mpirun --oversubscribe -np 2) ;;
    *)
      echo "unknown corpus program $p" >&2
      return 1
      ;;
  esac
}

header() {
  echo "Corpus programs: correlation with direct attribution (Pearson), skid injected: insns $1;"
  echo "overlap = share of the misses put on direct's variables in direct's proportions;"
  echo "+acc = the same method then access-pattern weights (blame-static's locality classes)"
  printf '%-10s %-35s   %-35s\n' "" "------------- Pearson -------------" "------------- overlap -------------"
  printf '%-10s %-17s %-17s   %-17s %-17s\n' "" "---- no skid ----" "----- skid ------" "---- no skid ----" "----- skid ------"
  h=$(printf '%5s %5s %5s %5s %5s %5s' raw loop +acc raw s+l +acc)
  printf '%-10s %s   %s\n' program "$h" "$h"
}
for skid in "${skids[@]}"; do
  if [ "$skid" = "${skids[0]}" ]; then header "$skid"; else header "$skid" >"$work/table.$skid"; fi
done

run_program() {
  local p=$1 cc srcs flags args env launch
  spec "$p"
  local dir="$work/$p"
  mkdir -p "$dir/allocs"
  local objs=()
  for s in $srcs; do
    local o
    o="$dir/$(basename "${s%.*}").o"
    # shellcheck disable=SC2086
    BLAME_CC_SYNC=1 BLAME_DB="$dir/static.db" OMPI_CC=clang-19 OMPI_CXX=clang++-19 \
      "$blame" cc -- "$cc" -g -gdwarf-4 $flags -fno-pie -c "$s" -o "$o" >/dev/null
    objs+=("$o")
  done
  local link=(-lm)
  [[ $flags == *-fopenmp* ]] && link+=(-fopenmp)
  OMPI_CC=clang-19 OMPI_CXX=clang++-19 "$cc" -g -gdwarf-4 -no-pie "${objs[@]}" "${link[@]}" -o "$dir/$p"
  # shellcheck disable=SC2086
  # A program that fails or outlives TIMEOUT seconds under lackey gets a
  # row saying so, and the others still run.
  if ! env "${env[@]}" BLAME_ALLOC_DIR="$dir/allocs" LD_PRELOAD="$work/libblame_alloc.so" \
    timeout "${TIMEOUT:-900}" "${launch[@]}" valgrind --tool=lackey --trace-mem=yes --log-file="$dir/trace.%p" \
    "$dir/$p" $args >/dev/null 2>"$dir/stderr"; then
    for skid in "${skids[@]}"; do
      local row
      row=$(printf '%-10s not evaluated: the run under lackey failed or timed out (%s)' "$p" \
        "$(tail -n 1 "$dir/stderr" | cut -c1-60)")
      if [ "$skid" = "${skids[0]}" ]; then echo "$row"; else echo "$row" >>"$work/table.$skid"; fi
    done
    rm -rf "$dir"
    return
  fi
  # The program's own process (an MPI singleton may start helpers): the
  # largest trace, and its allocation log.
  local trace pid allocs
  trace=$(ls -S "$dir"/trace.* | head -n 1)
  pid=${trace##*.}
  allocs=$(ls "$dir/allocs/"*"$pid"*.balloc 2>/dev/null | head -n 1 || true)
  [ -n "$allocs" ] || allocs=$(ls "$dir/allocs/"*.balloc | head -n 1)
  for skid in "${skids[@]}"; do
    local suffix=""
    [ "$skid" = "${skids[0]}" ] || suffix=".$skid"
    "$eval_bin" --binary "$dir/$p" --static "$dir/static.db" --trace "$trace" \
      --allocs "$allocs" --skid "$skid" --period 7 \
      ${explain:+--explain} 2>"$dir/explain" |
      if [ -z "$suffix" ]; then cat; else cat >>"$work/table.$skid"; fi
    [ -z "$explain" ] || cp "$dir/explain" "$explain.$p$suffix.txt"
    if [ -n "$json" ]; then
      "$eval_bin" --binary "$dir/$p" --static "$dir/static.db" --trace "$trace" \
        --allocs "$allocs" --skid "$skid" --period 7 --json >"$json.$p$suffix.json" 2>/dev/null
    fi
  done
  rm -rf "$dir"
}
for p in $programs; do run_program "$p"; done
for skid in "${skids[@]:1}"; do
  echo
  cat "$work/table.$skid"
done
